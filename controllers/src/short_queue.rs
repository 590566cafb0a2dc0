//! `discern`'s default algorithm: a short queue of its own when the flow has the bottleneck to
//! itself, NewReno's manners when another flow keeps a queue standing, and a loss response by
//! cause.
//!
//! Once per round trip, at the round's end, the algorithm reads the standing queue `q`
//! ([`PathModel::standing_queue`]) against the target `t` (a couple of packet times,
//! [`PathModel::target`]):
//!
//! * **Own queue** (the start, and once `q` has stayed below the target for a few rounds): after
//!   slow start (which ends when the queue of the last few frames, read past the delay noise
//!   that is not the flow's own bursts ([`PathModel::noise_beyond_trend`]), reaches twice the
//!   target, or, on a path whose delay is noisy beyond its trend, when the delivery rate stops
//!   growing: [`NoisyStart`]; where the spread beyond the trend is as large as the threshold, a
//!   queue of the threshold must stand through a round with the window held, as HyStart++'s
//!   conservative slow start asks, where that spread is also more than the flow's own bursts
//!   make in slow start: `DelayExitCheck`; and
//!   halves the window where that queue holds more packets than a burst: on a 1 Gbit/s, 40 ms
//!   path the last doubling otherwise left 32 ms queued, and the p95 queue at 1.6 times the
//!   budget; see [`ShortQueueAlgorithm`]'s `end_slow_start`),
//!   the window follows FAST TCP's update (Wei, Jin, Low and Hegde, ToN 2006, equation 1, with
//!   `gamma = 1/2`): `w <- w + (w * minRTT / (minRTT + q) + alpha - w) / 2`, at most doubling,
//!   where `alpha = t x peak rate` is the target queue in bytes. It converges to the window that
//!   keeps `t` queued, shrinks the queue the flow built, and regrows within a few rounds after a
//!   loss response, where Reno's one MSS per round trip would take seconds on a long path.
//! * **Shared queue**: a queue that stays above two targets for four rounds without the update
//!   bringing it down by a quarter from its highest in those rounds is not the flow's own (the
//!   highest, not the first: slow start's last doubling reaches the queue a round or two after
//!   the window has begun to shrink, and on a gigabit path the first long round read 3 ms and the
//!   peak 32 ms), nor is one that has come down but stands for more bytes, at the flow's peak
//!   rate, than twice its window (another flow's start-up queue that drains to the one it
//!   keeps, as BBR's does, comes down by more than a quarter whatever this flow does), nor one
//!   that still stands above the target after the update has taken out of flight as many bytes
//!   as the highest queue of those rounds held ([`Yielding`]; an AQM keeps another flow's queue
//!   near its own target, which may stand below two of this flow's, and there the update would
//!   yield round after round): a loss-based flow is filling the
//!   buffer, and yielding further would starve this one (Vegas and FAST against Reno). The flow
//!   then competes (Copa's competitive mode, Arun and Balakrishnan, NSDI 2018, section 2.3, with
//!   the switch read from the update's effect instead of an emptied queue) until the queue stays
//!   below the target for four rounds. How it competes depends on how deep the shared queue
//!   stands. Up to [`DEEP_QUEUE`], as deep as an AQM keeps one, it grows and halves as NewReno
//!   does, which shares an AQM's drops evenly; where that queue is the one that ended slow start
//!   while the delivery rate still grew, and has stood since, NewReno would still be in slow start,
//!   and the flow takes it up again until a loss (`resume_newreno_start`: a jitter offset or
//!   another flow's queue, read as the flow's own); so it does where such a queue stands for
//!   [`DROPLESS_SHARED_ROUNDS`] rounds with no congestion loss on a path that shows noise
//!   (`resume_dropless_start`): an AQM drops from the queue it keeps, and that one is a jitter
//!   offset the noise floor has not learnt. Deeper, a buffer-filler is at work (CUBIC,
//!   which most hosts run, or BBR): the flow reopens slow start from the small window its yielding
//!   left (limited, RFC 3742), then grows and backs off as CUBIC (RFC 9438; [`Competing`]), whose
//!   Reno-friendly region still leaves a Reno flow its share. CUBIC's `W_max` is the window that
//!   carried the flow's peak rate before it yielded, at today's round trip, so its concave growth
//!   regains that share within seconds; from the yielded window it would plateau there, and
//!   drop-tail losses, which meet both flows at once, keep the ratio of two CUBIC windows where it
//!   is. For the same reason, losses at the full buffer do not end the reopened slow start before
//!   the window is back at that share (a drop-tail buffer drops only when full, so a loss that
//!   meets a queue well short of the deepest is an AQM's, and ends it), and that window stays
//!   `W_max` at every loss until the flow has reached it: the first rounds of a contest meet a
//!   buffer the other flow keeps full, and a `W_max` reset to the window of each loss would plateau
//!   below the share again. A loss-based flow alone keeps a deep buffer full by itself, so the
//!   queue never reads short once the other flow leaves: a drain probe ([`crate::drain_probe`])
//!   empties the flow's own part of it from time to time, and when the delivery rate jumps for
//!   several rounds, to look.
//!
//! Where a rate limit has been found (see below), the window grows by RFC 9438's Reno-friendly
//! increase (about half a segment a round), and never more than a target's worth of bytes a round
//! above the limit, however empty the queue: a policer has none to show.
//!
//! **A noisy path** ([`PathModel::is_noisy`]: the delay varies from frame to frame, or on average
//! over the frames of the last round, by more than the target) cannot tell the flow's queue from
//! delay noise. Per-packet jitter that keeps packets in order holds every packet behind a late one,
//! so the delay it adds grows with the rate and reads as a queue that grows with the window: on
//! `jitter-30M-30ms-1%` (3 ms mean exponential jitter) the standing queue read 4 ms at 5 Mbit/s and
//! 12 to 14 ms near 30 Mbit/s with no queue at the bottleneck, and FAST's update held the window at
//! 5 Mbit/s (efficiency 0.70 against the flow's own lossless runs, which reached 5 Mbit/s as well;
//! quinn's BBR 27 Mbit/s). There the flow probes for rate: where the update would hold or shrink
//! the window, every eight rounds the window rises by a quarter and is held for four rounds, and
//! the path model learns a noise floor ([`PathModel::noise_floor`]) from whether the delivery rate
//! followed, and, where no buffer-filler has been met lately, from whether it fell as FAST's update
//! shrank the window over a queue that did not drain: FAST otherwise shrinks the window on noise
//! round after round, and a probe every eight rounds does not make up for it. A window that lost
//! more than an eighth of itself to congestion overflowed a buffer, and the rounds around it read
//! no pipe: another flow that backs off from the same overflow frees the rate this flow then
//! gains, over a queue that is that flow's, and the comparison would learn the queue as noise
//! (the path model forgets its rounds, [`PathModel::forget_rounds`]). The floor is taken
//! out of the standing queue and of the queue a lost packet met, added to the minimum RTT as the
//! RTT of an empty queue, and added to the guard; whose queue it is is read past the jitter as
//! well. On other paths the jitter stays far below the target, and nothing changes.
//!
//! Once the path has shown noise that way (and its raw samples, with the ACK Delay the receiver
//! claims left in, vary as much: a receiver that claims the queue as ACK Delay makes only the
//! corrected ones jump), the window keeps a floor while the flow's queue is its own: twice the
//! pipe that the largest delivery rate of the last ten rounds shows (BBR's `cwnd_gain * BtlBw *
//! RTprop`). A delay-based flow whose delay range is narrower than the path's noise can starve
//! (Arun, Alizadeh and Balakrishnan, SIGCOMM 2022); the rate cannot be fooled that way, since a
//! larger window delivers more only while the pipe is not full. The floor queues at most one
//! minimum RTT, so a deeper standing queue is still another flow's, and for a hundred rounds
//! after the flow last met a buffer-filler there is no floor: one that comes and goes reads as
//! noise too. A loss that met no more than the queue the floor keeps is the channel's while the
//! window (of fifty packets or more) loses no more than BBRv3's 2 % in a loss episode
//! (`ShortQueueAlgorithm::floor_passes_over`): the delay cannot tell that queue from noise, so
//! the classifier's guard would call every random loss there congestion. A window that loses
//! more than a channel does (BBRv3's 2 %) caps the floor at the
//! window its loss response left, and the cap grows back by an eighth a round (BBRv3's
//! `inflight_hi`): behind fair queueing the floor's queue stands in the flow's own sub-queue,
//! and CoDel's drops there would otherwise be undone round after round.
//!
//! Losses ([`ShortQueue`]): a loss that met a queue above the guard ([`PathModel::guard`]: at
//! most three targets, the base bounded by the larger of one and a half targets and 4 ms, plus
//! the receiver's bursts or the jitter beyond a target, at least 3 ms) is congestion. Sharing a
//! queue, it halves the window once per window, as NewReno; with the queue its own, it takes out
//! the queue the lost packet met,
//! `cwnd = W * min RTT / (min RTT + queue)`, never below half of the window and never above it,
//! which drains the queue and keeps the pipe full. `W` is the larger of the window of the moment
//! and the one the lost packet was sent under, which built that queue: where FAST's update has
//! shrunk the window since, the queue would otherwise come out twice (after a gigabit slow start,
//! the window fell to 0.65 of the pipe). For the same reason, a round that ends in recovery does
//! not shrink the window again, since the queue it read predates the cut. (Taking `W` as the window
//! the packet was sent under even where the window has grown since cut deeper after slow start:
//! over 10 seeds it halved the gigabit classes' p95 queue but cost a tenth of the share against
//! CUBIC on drop-tail and PIE.) A loss share beyond a channel's with no queue is a rate limit (a
//! policer), unless the path's delay reads its queue and the losses were one run of consecutive
//! packets, a channel's fade (the classifier's `RUN_REVEALS`), or one of the window's losses met
//! a queue: a buffer's overflow, whose later losses were sent as the loss response drained it.
//! The limit is remembered for 16 rounds, beyond the rounds the window takes to grow back to it,
//! after the last window that lost three packets or more; meanwhile every loss with the queue
//! short, from a window no smaller than the limit's cut leaves, is its. Each cuts the window to
//! 0.7 once per window, and the window grows back by `3 (1 - 0.7) / (1 + 0.7)` segments a round:
//! the AIMD pair that takes Reno's share (RFC 9438 section 4.3), since a policer is a limit the
//! flow shares like a queue, and alone it holds more of the limit's rate than Reno's halving. (A
//! lone loss does not renew the limit, and a loss from a window below the cut is random: on a
//! lossy path a limit read once, from a slow start's overshoot into a shallow buffer, would
//! otherwise keep cutting the window.) Other losses are random and keep the window. An ECN-CE
//! mark reduces by `ecn_beta` (RFC 8511); persistent congestion restarts slow start.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::adapter::Algorithm;
use crate::classify::{
    beyond_a_channel, half_window_lost, lost_share_of_window, Discriminator, LossCause, LossRead,
    NoiseRead, PathModel, ShortQueue, RATE_BETA,
};
use crate::drain_probe::{AloneRate, DrainAction, DrainProbe, SETTLED_ROUNDS};
use crate::event::{Ack, AckBatch, CongestionEvent, Decision, State, Verdict};
use crate::growth::{reno_friendly_alpha, Cubic, Growth};
use crate::trace::micros;
use crate::window::Window;

/// RFC 3742's `max_ssthresh` for the flow's first slow start, in MSS: above it, a round adds
/// about half of it (section 3's `K`, rounded down, makes it up to three quarters). A doubling
/// round that crosses the pipe sends up to a whole pipe more before the queue it builds comes back
/// to be read, one round trip later, and a buffer smaller than that drops the difference, one
/// packet in two from a paced sender, each drop a gap that the receiver holds until its
/// retransmission arrives: on a path of thousands of packets and a buffer of a third of its pipe,
/// more than a quinn receiver holds (1024), and it closes the connection. With about 1024 MSS a
/// round, the round that crosses the pipe queues no more than that before the delay exit reads
/// it. Larger than the paper controllers' [`crate::window::MAX_SSTHRESH_PACKETS`], whose slow
/// start ends only at a loss, so that the limit costs a gigabit start a round or two, not seconds.
pub const START_MAX_SSTHRESH_PACKETS: u64 = 2048;

/// Rounds the queue must stay above two targets, with the window shrinking, before it counts
/// as another flow's.
const ROUNDS_BEFORE_SHARED: u32 = 4;
/// RFC 9406's `CSS_GROWTH_DIVISOR`: [`SlowStartRamp::Ease`] grows by the acknowledged bytes over
/// this.
const EASED_GROWTH_DIVISOR: u64 = 4;
/// The fraction of the highest standing queue of those rounds they must remove for the queue to
/// count as the flow's own.
const SHRINK_EFFECT: f64 = 0.25;
/// The window's growth per round while it refills a pipe the path has carried.
const REFILL_GROWTH: f64 = 1.25;
/// Rounds in a row with a short queue after which a shared queue is the flow's own again.
const SHARED_EXIT_ROUNDS: u32 = 4;
/// Rounds after the flow leaves the shared mode in which a refill reaches only the pipe the rate of
/// those rounds shows ([`ShortQueueAlgorithm`]'s `refill_pipe`): as long as BBR's rate filter.
const AFTER_SHARED_ROUNDS: u64 = NOISY_BW_ROUNDS as u64;
/// A rate probe on a noisy path: the window's rise, the rounds it is held (one for the raised
/// window's data to reach the receiver, three for [`PathModel::noise_floor`]'s comparison), and
/// the rounds between probes.
const PROBE_GAIN: f64 = 1.25;
const PROBE_HOLD: u32 = 4;
const PROBE_INTERVAL: u32 = 8;
/// A queue at the end of slow start that holds more packets than this is no burst: quinn's pacer
/// and a receiver that acknowledges every tenth packet release bursts of about ten.
const SLOW_START_DRAIN_PACKETS: f64 = 16.0;
/// The share of a standing queue's bytes, at the flow's peak delivery rate, that a window must hold
/// for the queue to be its own ([`ShortQueueAlgorithm`]'s `holds_too_little_of`). Half, not all:
/// where the capacity falls (a cellular path), the peak rate overstates today's, and a queue of the
/// flow's own grows as the capacity falls.
const HELD_QUEUE_SHARE: f64 = 0.5;
/// The spread beyond the trend, in [`PathModel::own_burst_step`]s, that a slow start's own
/// queue stays within: each frame's packets release twice as many, so the queue rises by about a
/// step a frame, and every step is the trend.
const SLOW_START_BURST_STEPS: u32 = 2;
/// Delay exits whose check found the queue fell back, after which a slow start no longer reads
/// the delay: on the default it ends by the rate, as on a path noisy beyond its trend (that many
/// falls show the delay is noise), and with `start = delay` at the next exit. Without a bound,
/// a path whose frames stand high half of each round held every round's growth to a few frames.
const MAX_FAILED_EXIT_CHECKS: u32 = 3;
/// A shared standing queue this long is a buffer-filler's, not an AQM's: CoDel keeps 5 ms (RFC
/// 8289 section 4.4), PIE 15 ms (RFC 8033 section 4.1) and drops above; twice PIE's target leaves
/// room for its transients. Behind an AQM the flow keeps NewReno's manners, which share an
/// AQM's drops evenly; against a deeper queue it competes ([`Competing`]).
const DEEP_QUEUE: Duration = Duration::from_millis(30);
/// The share of the deepest standing queue a contest has seen that a loss must meet to have met
/// the full buffer of a drop-tail queue. The two are read differently: the queue a loss met is the
/// least of the frames around it, the standing queue a round's average of such minima, and a
/// round's average moves by about a quarter from round to round as the flows' bursts come and
/// go (the ownership test allows a quarter too, [`SHRINK_EFFECT`]).
const FULL_BUFFER_SHARE: f64 = 0.75;
/// How much deeper than the deepest so far a contest's standing queue must stand to count as
/// still deepening, and for how many rounds it must then not deepen before its losses count as
/// the full buffer's ([`ShortQueueAlgorithm::met_full_buffer`]). A full drop-tail buffer is a
/// ceiling the queue cannot pass. A slow start doubles its window a round, and a queue it builds
/// by itself (its window past its pipe) at least doubles with it; a round's reading of a queue
/// that stands at a ceiling moves by about a quarter as the flows' bursts come and go
/// ([`FULL_BUFFER_SHARE`]). Half again as deep is twice that spread and well short of a
/// doubling.
const DEEPENING: f64 = 1.5;
/// Rounds the deepest queue must go without [`DEEPENING`] before a loss counts as a full
/// buffer's.
const DEEPEST_SETTLED_ROUNDS: u64 = 2;
/// Windows [`SentWindows`] keeps: a lost packet is declared within a few round trips of its
/// sending, and the window moves at most a few times a round.
const SENT_WINDOWS_KEPT: usize = 32;
/// BBR's `cwnd_gain` and `BtlBw` filter length in rounds, for the window floor of a noisy path.
const NOISY_CWND_GAIN: f64 = 2.0;
const NOISY_BW_ROUNDS: usize = 10;
/// The floor's gain once a rise has read the pipe full ([`NoisyFloor::Read`]): the pipe alone,
/// no queue.
const FULL_PIPE_CWND_GAIN: f64 = 1.0;
/// BBRv3's loss bound (`BBRLossThresh`, 2 %), as one over the share of a window, and how fast the
/// cap it sets on the window floor grows back a round.
const FLOOR_LOSS_SHARE: u64 = 50;
const FLOOR_CAP_GROWTH: f64 = 1.125;
/// One over the share of a window that, lost to congestion within one window, shows a buffer's
/// overflow: a random channel of a few percent loses an eighth of a window only by rare chance,
/// and the overshoot of a slow start or of two flows meeting a full drop-tail buffer loses a
/// third or more.
const OVERFLOW_SHARE: u64 = 8;
/// Rounds after the flow last met a buffer-filler before the noisy path's window floor applies
/// again, and before the path model reads a fall of the data in flight for noise
/// ([`PathModel::set_other_flow_near`]): as long as the peak-rate memory of the path model, since
/// a buffer-filler that comes and goes shows as delay noise too.
const FLOOR_QUIET_ROUNDS: u64 = 100;
/// Rounds a shared queue below [`DEEP_QUEUE`] may stand without a congestion loss on a path that
/// shows noise before it counts as no AQM's ([`ShortQueueAlgorithm`]'s `resume_dropless_start`):
/// CoDel drops once its queue has stood above 5 ms for its 100 ms interval (RFC 8289 section
/// 4.4), which on a 5 ms path is twenty rounds, and PIE sooner.
const DROPLESS_SHARED_ROUNDS: u64 = 32;
/// Round ends after a slow start that kept its window in which the queue its last doubling built
/// is drained at once ([`ShortQueueAlgorithm`]'s `drain_overshoot`): the packets sent past the
/// pipe in the round that ended it queue in the round after, and their delay shows at that
/// round's end or the next.
const OVERSHOOT_WATCH_ROUNDS: u32 = 2;
/// The window, in pipes the delivery rate fills (plus the target's bytes), that marks a slow
/// start's overshoot: its last doubling leaves about two; a window that slow start left near the
/// pipe, where delay noise (not a queue of its own) ended it, holds little more than one.
const OVERSHOOT_WINDOW: f64 = 1.5;

/// The span of the latest slow start, as the ACK frames saw it: from the first that found the
/// window in it to the first that found it out of it. A packet sent within it was sent by a
/// window that doubled (once the window is cut, the data in flight exceeds it and nothing more is
/// sent until ACK frames come). The first slow start spans everything before its end; one that a
/// contest, a collapse or a NewReno resume reopened begins at its first frame, so that losses of
/// packets that avoidance sent before it are not counted as its.
#[derive(Debug, Clone, Copy, Default)]
struct SlowStartSpan {
    seen: bool,
    began: Option<Instant>,
    ended: Option<Instant>,
}

impl SlowStartSpan {
    fn on_ack_batch(&mut self, now: Instant, in_slow_start: bool) {
        let open = self.seen && self.ended.is_none();
        if in_slow_start && !open {
            self.began = self.seen.then_some(now);
            self.ended = None;
            self.seen = true;
        } else if !in_slow_start && open {
            self.ended = Some(now);
        }
    }

    fn contains(&self, sent: Instant) -> bool {
        self.seen
            && self.began.is_none_or(|began| sent >= began)
            && self.ended.is_none_or(|ended| sent <= ended)
    }
}

/// How the flow grows and backs off while another flow keeps the queue standing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Competing {
    /// CUBIC (RFC 9438): its window function and Reno-friendly region, and `beta` = 0.7. The
    /// buffer-fillers a flow meets today are CUBIC (and BBR, which leaves a CUBIC flow more than a
    /// Reno one); with CUBIC's own rules the flow takes an even share from CUBIC, and the
    /// Reno-friendly region (section 4.3) leaves a Reno flow its share where CUBIC's function is
    /// slower than Reno.
    Cubic,
    /// NewReno's manners: one MSS a round, halve on congestion.
    Reno,
}

/// What ends slow start on a path whose delay is noisy beyond its trend
/// ([`PathModel::is_noisy_beyond_trend`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NoisyStart {
    /// A queue of the exit threshold, as on any path, read past the noise's spread
    /// ([`PathModel::noise_beyond_trend`]): where the spread is larger than the threshold, the
    /// queue that ends slow start holds that much more than a quiet path's.
    Delay,
    /// The delivery rate (the default): slow start goes on while each round delivers a quarter
    /// more than the best before it (BBR's full-bandwidth check,
    /// draft-cardwell-iccrg-bbr-congestion-control section 4.3.1.2), whatever the delay. The
    /// window reaches the pipe through jitter. The noise is read with its trend taken out: on a
    /// slow link the queue a slow start builds moves by a packet time or more from frame to
    /// frame, as much as jitter moves it, but only ever up, and there the queue still ends slow
    /// start, as on a quiet path. On a noisy path with a deep buffer, the rounds that confirm the
    /// rate has stopped growing still queue what they sent past the pipe.
    #[default]
    Rate,
}

/// How high the noisy path's window floor stands ([`ShortQueueAlgorithm`]'s `hold_rate_floor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NoisyFloor {
    /// Twice the pipe the delivery rate shows (the default; BBR's `cwnd_gain`).
    #[default]
    Twice,
    /// That until a rise of the data in flight reads the pipe full (the rate did not follow,
    /// or the queue rose with it: [`PathModel::last_pipe_read_full`]), then the pipe alone,
    /// until a rise reads it not full. A floor of twice the pipe keeps a pipe queued; where
    /// the flow shares the link it counts on, that queue is taken from the other flow: behind
    /// CoDel, a NewReno flow that halves at every drop keeps no queue to show, and the floor,
    /// raised by each rate it gains, takes most of the link. Measured beside the default in
    /// docs/RESULTS.md and not the default: alone on the jitter classes, a floor of one pipe
    /// leaves FAST's update to shrink the window on noise between readings.
    Read,
}

/// What the first rounds after a slow start that kept its window (its exit read a queue of a
/// burst's size or less) do with the queue its last doubling built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overshoot {
    /// FAST's update, halfway to its aim a round (the default).
    #[default]
    Fast,
    /// At once to the pipe the delivery rate fills ([`ShortQueueAlgorithm`]'s
    /// `drain_overshoot`). Measured beside the default in docs/RESULTS.md and not the default:
    /// against a CUBIC flow that starts with it on a 2 BDP buffer, the window given up at once
    /// lowers the share the flow then regains.
    Drain,
}

/// How the flow's own slow start grows once its window holds the pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SlowStartRamp {
    /// Doubling a round (RFC 9002 section 7.3.1) until the delay or a loss ends it (the default).
    #[default]
    Double,
    /// A quarter a round, as HyStart++'s Conservative Slow Start grows (RFC 9406 section 4.2,
    /// `CSS_GROWTH_DIVISOR` = 4), once the window holds the pipe that the bottleneck's rate,
    /// read from the fastest ACK frames ([`PathModel::burst_pipe`]), fills in a minimum RTT.
    /// The delay reads a queue a round trip after the packets that built it were sent, so a
    /// doubling window is up to twice the pipe when the exit reads it, and that pipe's worth of
    /// bytes stands in the queue for rounds while the window comes down. Growing by a quarter
    /// past the pipe, the window is at most a quarter over it when the queue shows. Where the
    /// frames read the rate low, the window still grows by a quarter a round, to the pipe within
    /// a few rounds; where they read it high (ACK compression), slow start doubles on, as by
    /// default. Measured beside the default in docs/RESULTS.md and not the default: beside a peer
    /// that starts with the flow, the queue the exit reads is partly the peer's doubling, and the
    /// cut to four fifths leaves the peer less than a halving would.
    Ease,
}

/// Where [`Overshoot::Drain`] stands with the queue a slow start's last doubling built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterStart {
    /// Nothing to drain.
    Settled,
    /// A slow start has just ended with its window kept: at this many more round ends a standing
    /// queue is its overshoot ([`OVERSHOOT_WATCH_ROUNDS`]).
    Watching { rounds_left: u32 },
    /// The window has just been cut to the pipe the delivery rate fills: the next round's queue,
    /// built by the window before the cut, does not shrink it again.
    Drained,
}

/// Whose queue the flow sees at the bottleneck.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QueueOwner {
    /// The flow's own: it keeps it near the target.
    Own {
        /// Rounds in a row the standing queue has been above two targets.
        long_rounds: u32,
        /// The standing queue at the first of those rounds.
        queue_before: Duration,
    },
    /// Another flow keeps it standing: grow as NewReno until it stays below the target.
    Shared {
        /// Rounds in a row the standing queue has been below the target.
        short_rounds: u32,
    },
}

impl QueueOwner {
    const OWN: QueueOwner = QueueOwner::Own {
        long_rounds: 0,
        queue_before: Duration::ZERO,
    };
}

/// The windows the flow has had lately, each from when it took effect: the queue a lost packet
/// met was built by the window it was sent under, which a loss response reads here where it is
/// larger than the window of the moment (a round-end update has taken part of that queue out).
#[derive(Debug, Clone, Default)]
struct SentWindows {
    since: VecDeque<(Instant, u64)>,
}

impl SentWindows {
    fn note(&mut self, at: Instant, cwnd: u64) {
        if self.since.back().is_some_and(|&(_, last)| last == cwnd) {
            return;
        }
        if self.since.len() == SENT_WINDOWS_KEPT {
            self.since.pop_front();
        }
        self.since.push_back((at, cwnd));
    }

    /// The window in force at `sent`, if it is still kept.
    fn at(&self, sent: Instant) -> Option<u64> {
        self.since
            .iter()
            .rev()
            .find(|&&(from, _)| from <= sent)
            .map(|&(_, cwnd)| cwnd)
    }
}

/// FAST's update yielding to a queue that stands above the target: the bytes it has taken out of
/// flight, against the highest standing queue of those rounds. A queue the flow built falls by as
/// many bytes as the flow takes out; once it has taken out all the queue held (at its peak
/// delivery rate, which a flow that had the bottleneck to itself once reached) and the queue still
/// stands, the queue is another flow's. This reads what the shrinking test misses behind an AQM:
/// CoDel holds a shared queue near its 5 ms target whatever this flow does, so the queue neither
/// stays above two targets for long nor fails to fall now and then, while the update yields to the
/// other flow every round. The bytes count up to the round before the last: the queue a round
/// reads was built by the window of the round before.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Yielding {
    /// The highest standing queue since the queue rose above the target.
    highest: Duration,
    /// Bytes the update has taken out of flight since then, net of what it gave back.
    taken_out: f64,
    /// [`Self::taken_out`] as it stood when the last round's end was read, before that round's
    /// update: the bytes whose effect the queue of the next round's end shows.
    shown: f64,
}

impl Yielding {
    /// Another round with the queue above the target: whether the flow has taken out as many
    /// bytes as the highest queue held at `peak_rate` (bytes per second), by the rounds the queue
    /// reads.
    fn outlasted(&mut self, queue: Duration, peak_rate: f64) -> bool {
        let outlasted = self.shown > 0.0 && self.shown >= self.highest.as_secs_f64() * peak_rate;
        self.highest = self.highest.max(queue);
        self.shown = self.taken_out;
        outlasted
    }
}

/// A queue of slow start's exit threshold, read where the delay's spread beyond its trend is as
/// large as that threshold and more than the flow's own bursts make in slow start
/// ([`SLOW_START_BURST_STEPS`]), so that the queue may be the jitter's: the window holds until a
/// whole round has passed, and slow start ends only if the queue never fell below the threshold in
/// that time. A queue the flow built stays while its window holds; order-keeping jitter, which
/// holds back every packet behind a late one, lifts runs of frames at once and lets them fall again
/// (the same check as HyStart++'s conservative slow start, RFC 9406 section 4.3, which resumes slow
/// start when a round's minimum RTT falls back below the one that ended it). The first rounds of a
/// flow are paced, so its own bursts do not yet show how much of the spread they make
/// ([`PathModel::own_burst_step`]), and a queue of the jitter's size ended slow start within a
/// round or two, far below the pipe.
#[derive(Debug, Clone, Copy, PartialEq)]
struct DelayExitCheck {
    /// The round in which the exit threshold was read.
    read_in: u64,
    /// The least queue of the last few frames ([`PathModel::recent_queue`]) since.
    least_queue: Duration,
}

/// The state machine of [`crate::Discern`]'s default.
#[derive(Debug, Clone)]
pub struct ShortQueueAlgorithm {
    window: Window,
    discriminator: Discriminator<ShortQueue>,
    owner: QueueOwner,
    competing: Competing,
    /// Whether the shared queue has stood deeper than an AQM keeps one ([`DEEP_QUEUE`]): the
    /// flow then competes by `competing`'s rules, with their growth and drain probe (see
    /// [`crate::drain_probe`]).
    contested: bool,
    /// The round the flow last began to compete with a buffer-filler.
    contested_at: Option<u64>,
    /// Whether the window has yet to reach, since the contest began, the one that carries the
    /// flow's peak delivery rate at today's round trip ([`Self::held_window`]).
    regaining: bool,
    /// The deepest standing queue (beyond the noise floor) since the contest began: the
    /// buffer-filler's full buffer.
    deepest_queue: Duration,
    /// The round in which the contest's standing queue last stood deeper than its deepest by
    /// [`DEEPENING`] (none yet: the queue the contest began at had stood through the rounds that
    /// read it as shared).
    deepened_at: Option<u64>,
    /// Whether the slow start a contest reopened is still the one under way: no loss response
    /// (nor a collapse after persistent congestion) has come since.
    contest_start: bool,
    /// The most the noisy path's window floor may set, since a window lost more than a channel
    /// loses (BBRv3's `inflight_hi`); it grows by an eighth a round.
    floor_cap: Option<f64>,
    shared_growth: Growth,
    drain: DrainProbe,
    /// The delivery rate the flow last had with the link to itself, for the drain probe.
    alone_rate: AloneRate,
    sent_windows: SentWindows,
    /// The most bytes in flight in the round under way ([`Self::holds_too_little_of`]).
    round_flight: u64,
    rounds_seen: u64,
    /// When the first ACK frame arrived ([`Self::in_first_flight`]).
    first_ack_at: Option<Instant>,
    /// The latest slow start, as the ACK frames that found the window in it saw it.
    slow_start: SlowStartSpan,
    /// A slow start's delay exit on a path whose jitter can explain it, waiting for a round to
    /// confirm it ([`DelayExitCheck`]).
    exit_check: Option<DelayExitCheck>,
    /// Checks of this slow start that found the queue fell back.
    failed_exit_checks: u32,
    /// Where [`Overshoot::Drain`] stands with the queue of the last slow start's doubling.
    after_start: AfterStart,
    /// Whether the delay ended slow start while the delivery rate was still growing, and the
    /// queue that ended it has stood since, with no loss response
    /// ([`Self::resume_newreno_start`]).
    delay_ended_start: bool,
    /// Rounds left in the hold of a rate probe, and rounds since the last one ended.
    probe_hold: u32,
    since_probe: u32,
    beta: f64,
    ecn_beta: f64,
    noisy_start: NoisyStart,
    overshoot: Overshoot,
    /// How high the noisy path's window floor stands.
    noisy_floor: NoisyFloor,
    contest_reach: f64,
    /// The update's yielding while the queue stands above the target in the own mode.
    yielding: Option<Yielding>,
    /// The round the flow last left the shared mode for its own because the queue read short
    /// (not by a drain probe, which ends the mode where the other flow has gone and the refill
    /// may take the link back).
    left_shared_at: Option<u64>,
    /// The round of the latest congestion verdict or entry into the shared mode, whichever came
    /// later ([`Self::resume_dropless_start`]).
    dropless_since: u64,
    /// How the flow's own slow start grows once its window holds the pipe.
    ramp: SlowStartRamp,
    /// Whether the flow's own slow start grows by [`SlowStartRamp::Ease`]'s quarter, as the
    /// latest ACK frame found it.
    easing: bool,
}

impl ShortQueueAlgorithm {
    /// How far a contest's slow start reaches, in windows that carry the flow's peak rate at
    /// today's round trip ([`Self::with_contest_reach`]): past the share it held, as far as a
    /// loss allows, but on a path whose capacity leaps (a cellular trace) not to several times
    /// the window that share needs. Short of two windows: where the capacity leaps, the queue
    /// empties now and then, a drain probe then finds it short, and the flow meets the
    /// buffer-filler afresh a few seconds later, so the reach is taken again and again; each
    /// time, the packets the last doubling sends past the full buffer take from the other flow's
    /// share. One window is too short the other way: behind a one-BDP drop-tail buffer the flow
    /// then stays below an even share. (docs/RESULTS.md measures 1.5, 1.75 and 2 side by side.)
    pub const DEFAULT_CONTEST_REACH: f64 = 1.75;

    /// An algorithm that starts from `window` (its slow start limited above
    /// [`START_MAX_SSTHRESH_PACKETS`]), competes for a shared queue by `competing`'s
    /// rules, multiplies by `beta` on a shared queue's congestion under [`Competing::Reno`] (and
    /// where half a window is lost) and by `ecn_beta` on a CE mark.
    pub fn new(window: Window, competing: Competing, beta: f64, ecn_beta: f64) -> Self {
        Self {
            window: window.with_limited_slow_start(START_MAX_SSTHRESH_PACKETS),
            discriminator: Discriminator::new(ShortQueue::default()),
            owner: QueueOwner::OWN,
            yielding: None,
            left_shared_at: None,
            dropless_since: 0,
            competing,
            contested: false,
            contested_at: None,
            regaining: false,
            deepest_queue: Duration::ZERO,
            deepened_at: None,
            contest_start: false,
            floor_cap: None,
            shared_growth: match competing {
                Competing::Cubic => Growth::cubic(),
                Competing::Reno => Growth::Reno,
            },
            drain: DrainProbe::default(),
            alone_rate: AloneRate::default(),
            sent_windows: SentWindows::default(),
            round_flight: 0,
            rounds_seen: 0,
            first_ack_at: None,
            slow_start: SlowStartSpan::default(),
            ramp: SlowStartRamp::default(),
            easing: false,
            exit_check: None,
            failed_exit_checks: 0,
            after_start: AfterStart::Settled,
            delay_ended_start: false,
            probe_hold: 0,
            since_probe: 0,
            beta,
            ecn_beta,
            noisy_start: NoisyStart::default(),
            overshoot: Overshoot::default(),
            noisy_floor: NoisyFloor::default(),
            contest_reach: Self::DEFAULT_CONTEST_REACH,
        }
    }

    /// The algorithm with a contest's reopened slow start reaching `reach` held windows
    /// ([`Self::DEFAULT_CONTEST_REACH`]).
    pub fn with_contest_reach(mut self, reach: f64) -> Self {
        self.contest_reach = reach;
        self
    }

    /// The algorithm answering a slow start's overshoot by `overshoot`'s rule.
    pub fn with_overshoot(mut self, overshoot: Overshoot) -> Self {
        self.overshoot = overshoot;
        self
    }

    /// The algorithm keeping the noisy path's window floor by `noisy_floor`'s rule.
    pub fn with_noisy_floor(mut self, noisy_floor: NoisyFloor) -> Self {
        self.noisy_floor = noisy_floor;
        self
    }

    /// The algorithm growing its own slow start by `ramp` once the window holds the pipe.
    pub fn with_ramp(mut self, ramp: SlowStartRamp) -> Self {
        self.ramp = ramp;
        self
    }

    /// The algorithm with `noisy_start` ending slow start on a path whose delay is noisy beyond
    /// its trend.
    pub fn with_noisy_start(mut self, noisy_start: NoisyStart) -> Self {
        self.noisy_start = noisy_start;
        self
    }

    /// The algorithm reading losses below the guard by `loss_read`'s rule ([`LossRead`]).
    pub fn with_loss_read(mut self, loss_read: LossRead) -> Self {
        self.discriminator.classifier_mut().set_loss_read(loss_read);
        self
    }

    /// The algorithm reading delay noise by `noise_read`'s rule ([`NoiseRead`]).
    pub fn with_noise_read(mut self, noise_read: NoiseRead) -> Self {
        self.discriminator
            .classifier_mut()
            .path_mut()
            .set_noise_read(noise_read);
        self
    }

    /// The loss classifier and the path model it keeps.
    pub fn classifier(&self) -> &ShortQueue {
        self.discriminator.classifier()
    }

    /// Whose queue the flow takes the standing queue to be.
    pub fn owner(&self) -> QueueOwner {
        self.owner
    }

    fn path(&self) -> &PathModel {
        self.discriminator.classifier().path()
    }

    /// The end of a round: whose queue it is, and, when it is the flow's own and slow start is
    /// over, FAST's window update.
    fn on_round_end(&mut self) {
        let filler_near = self.filler_near();
        self.discriminator
            .classifier_mut()
            .path_mut()
            .set_other_flow_near(filler_near);
        let Some(queue) = self.path().standing_queue() else {
            return;
        };
        let queue = queue.saturating_sub(self.path().noise_floor());
        let target = self.path().target();
        let was_shared = matches!(self.owner, QueueOwner::Shared { .. });
        // Whose queue it is, and how deep another flow keeps it, read past the jitter.
        let beyond_noise = queue.saturating_sub(self.noise_margin());
        if beyond_noise < target {
            self.delay_ended_start = false;
        }
        self.owner = self.next_owner(beyond_noise, target);
        let did_not_shrink = !was_shared && matches!(self.owner, QueueOwner::Shared { .. });
        self.read_yielding(beyond_noise, target);
        if was_shared && matches!(self.owner, QueueOwner::Own { .. }) {
            self.left_shared_at = Some(self.path().rounds());
        }
        let settled = matches!(self.owner, QueueOwner::Own { .. }) && !self.window.in_slow_start();
        // The best rate of the settling rounds matters only while the own mode settles.
        let recent_peak = if settled {
            self.path().recent_peak_rate(SETTLED_ROUNDS as usize)
        } else {
            0.0
        };
        self.alone_rate
            .on_round(self.path().rounds(), settled, recent_peak);
        self.confirm_delay_exit();
        self.trace_round(queue, beyond_noise);
        match self.owner {
            QueueOwner::Shared { .. } => {
                if !was_shared {
                    self.contested = false;
                    self.dropless_since = self.path().rounds();
                    self.resume_newreno_start(did_not_shrink);
                }
                self.resume_dropless_start(beyond_noise);
                if self.contested {
                    if queue > self.deepest_queue.mul_f64(DEEPENING) {
                        self.deepened_at = Some(self.path().rounds());
                    }
                    self.deepest_queue = self.deepest_queue.max(queue);
                    self.drain_probe(beyond_noise, target);
                } else if beyond_noise >= DEEP_QUEUE {
                    self.contest(queue);
                }
            }
            QueueOwner::Own { .. } => {
                self.drain = DrainProbe::default();
                if self.window.in_slow_start() && self.starts_by_rate() && self.path().pipe_filled()
                {
                    self.end_slow_start();
                }
                if !self.window.in_slow_start()
                    && !self.rate_probe(queue, target)
                    && !self.drain_overshoot(beyond_noise, target)
                {
                    self.fast_update(queue, target);
                }
                self.hold_rate_floor(beyond_noise);
            }
        }
    }

    /// The shared queue stands deeper than an AQM keeps one: a buffer-filler is at work. Compete
    /// by [`Competing`]'s rules, starting as a loss-based flow starts, with slow start until the
    /// next congestion verdict that [`Self::passes_over_contest_loss`] does not pass over, or
    /// until the contest reach in held windows ([`Self::with_contest_reach`]). The other flow
    /// filled the buffer from its own slow start while this one kept its queue short, and from
    /// the small window that leaves, CUBIC's or Reno's growth takes minutes to reach an even
    /// share on a long path (on a cellular path whose buffer holds seconds, a round lasts one).
    /// A slow start already under way (NewReno's, taken up again by
    /// [`Self::resume_newreno_start`]) goes on to its loss instead: its rate still grows with its
    /// window, so the held window understates what it would reach, and order-keeping jitter at a
    /// high rate stands as deep as such a queue on a path the flow has to itself.
    fn contest(&mut self, queue: Duration) {
        self.contested = true;
        self.contested_at = Some(self.path().rounds());
        self.regaining = true;
        self.deepest_queue = queue;
        self.deepened_at = None;
        self.contest_start = true;
        self.drain = DrainProbe::new(self.alone_rate.rate());
        let held = self.held_window(queue);
        self.start_cubic_epoch(held);
        // A slow start under way keeps its threshold; past slow start the threshold is at most the
        // window, which the reopened start begins from anyway.
        let reach = (self.contest_reach * held) as u64;
        self.window
            .reopen_slow_start(reach.max(self.window.ssthresh()));
    }

    /// What the end of this round read, at DEBUG on [`crate::trace::ROUND_TARGET`]: `queue` is
    /// the standing queue past the noise floor, `beyond_noise` that queue past the jitter too.
    /// Durations in microseconds, rates in bytes a second, windows in bytes.
    fn trace_round(&self, queue: Duration, beyond_noise: Duration) {
        let path = self.path();
        tracing::debug!(
            target: crate::trace::ROUND_TARGET,
            round = path.rounds(),
            owner = ?self.owner,
            cwnd = self.window.cwnd(),
            slow_start = self.window.in_slow_start(),
            round_flight = self.round_flight,
            queue_us = micros(queue),
            beyond_noise_us = micros(beyond_noise),
            target_us = micros(path.target()),
            guard_us = micros(path.guard()),
            noise_floor_us = micros(path.noise_floor()),
            jitter_us = micros(path.jitter()),
            noisy = path.is_noisy(),
            shows_noise = path.shows_noise(),
            min_rtt_us = micros(path.min_rtt()),
            peak_rate = path.peak_rate() as u64,
            round_rate = path.round_rate() as u64,
            floor_cap = ?self.floor_cap.map(|cap| cap as u64),
            rate_limit = ?self.classifier().rate_limit(),
        );
    }

    /// The competing rule's growth from the window the flow has, as if it had just backed off
    /// to it (for CUBIC, an epoch after a reduction) from the larger of that window over `beta`
    /// and `held`, the window that carries the flow's peak delivery rate through today's round
    /// trip ([`Self::held_window`]): the share the flow held before it yielded, which CUBIC's
    /// concave growth then regains within seconds, where from a plateau at a window that
    /// yielding left it takes minutes.
    fn start_cubic_epoch(&mut self, held: f64) {
        let before = (self.window.cwnd() as f64 / self.shared_beta()).max(held);
        self.shared_growth
            .on_reduction(before as u64, self.window.mss());
    }

    /// The window that carries the flow's peak delivery rate through a round trip of the minimum
    /// RTT and `queue`, bytes.
    fn held_window(&self, queue: Duration) -> f64 {
        let rtt = self.path().min_rtt().saturating_add(queue).as_secs_f64();
        self.path().peak_rate() * rtt
    }

    /// [`Self::held_window`] at the standing queue of the last round.
    fn held_window_now(&self) -> f64 {
        self.held_window(self.path().standing_queue().unwrap_or_default())
    }

    /// The window factor on a shared queue's congestion: the competing rule's against a
    /// buffer-filler, NewReno's otherwise.
    fn shared_beta(&self) -> f64 {
        match self.competing {
            Competing::Cubic if self.contested => Cubic::BETA,
            _ => self.beta,
        }
    }

    /// A round of the shared mode: the drain probe's turn ([`crate::drain_probe`]).
    ///
    /// A probe's verdict reads the round's standing queue, or, while the probe drains, the queue
    /// of the last few frames as well: the round that ends a probe began before the packets sent
    /// under the drained window came back, so its standing queue still holds part of the queue
    /// the probe has just emptied.
    fn drain_probe(&mut self, queue: Duration, target: Duration) {
        let rate = self.path().round_rate();
        let pipe = rate * self.path().min_rtt().as_secs_f64();
        let short = queue < target || (self.drain.is_draining() && self.recent_queue() < target);
        let action = self.drain.on_round(rate, short, self.window.cwnd(), pipe);
        self.alone_rate.raise(self.drain.link_rate());
        match action {
            None => {}
            Some(DrainAction::Resize(bytes)) => self.window.resize(bytes),
            Some(DrainAction::LeaveShared) => self.owner = QueueOwner::OWN,
        }
    }

    /// The queue of the last few frames ([`PathModel::recent_queue`]), read past the noise floor
    /// and the jitter as the standing queue is.
    fn recent_queue(&self) -> Duration {
        self.path()
            .recent_queue()
            .map_or(Duration::MAX, |queue| self.past_noise(queue))
    }

    /// `queue` read past the noise floor and the jitter ([`Self::noise_margin`]).
    fn past_noise(&self, queue: Duration) -> Duration {
        queue
            .saturating_sub(self.path().noise_floor())
            .saturating_sub(self.noise_margin())
    }

    /// The RTT of an empty queue, seconds: the minimum RTT, plus the noise floor on a noisy path
    /// (delay the data spends in flight outside any queue, at the rate the flow sends).
    fn base_rtt(&self) -> f64 {
        let path = self.path();
        path.min_rtt()
            .saturating_add(path.noise_floor())
            .as_secs_f64()
    }

    /// Whether slow start ends by the delivery rate rather than by delay: [`NoisyStart::Rate`] on
    /// a path whose delay is noisy beyond its trend ([`PathModel::is_noisy_beyond_trend`]), or
    /// whose queue has fallen back in [`MAX_FAILED_EXIT_CHECKS`] delay exits' checks
    /// ([`DelayExitCheck`]), where it ends once the rate stops growing
    /// ([`PathModel::pipe_filled`]), as BBR's start-up does, whatever the queue reads.
    fn starts_by_rate(&self) -> bool {
        self.noisy_start == NoisyStart::Rate
            && (self.path().is_noisy_beyond_trend()
                || self.failed_exit_checks >= MAX_FAILED_EXIT_CHECKS)
    }

    /// Whether the flow's own slow start grows by [`SlowStartRamp::Ease`]'s quarter: asked for,
    /// and the window holds the pipe the bottleneck's rate shows ([`PathModel::burst_pipe`]).
    fn eases_start(&self) -> bool {
        self.ramp == SlowStartRamp::Ease
            && self.window.in_slow_start()
            && matches!(self.owner, QueueOwner::Own { .. })
            && self
                .path()
                .burst_pipe()
                .is_some_and(|pipe| self.window.cwnd() as f64 >= pipe)
    }

    /// Slow start ends on a queue of at least the exit threshold, read past the delay noise that is
    /// not the flow's own bursts ([`PathModel::noise_beyond_trend`]). Where that queue holds more
    /// packets than any burst ([`SLOW_START_DRAIN_PACKETS`]), it is the standing queue the last
    /// doubling built: the packets that show it were sent a round trip ago, under about half of
    /// today's window, so the window halves, to the one that built it (four fifths of it where
    /// [`SlowStartRamp::Ease`] grew it by a quarter). Otherwise (on slower paths
    /// the threshold is a packet or two, which a burst shows before the pipe is full) the window
    /// stays, and FAST's update takes out what queue there is (or, with [`Overshoot::Drain`],
    /// [`Self::drain_overshoot`] once that queue shows).
    fn end_slow_start(&mut self) {
        let queue = self.path().recent_queue().unwrap_or_default().as_secs_f64();
        let queued_packets = queue * self.path().peak_rate() / self.window.mss().max(1) as f64;
        if queued_packets >= SLOW_START_DRAIN_PACKETS {
            let built_it = if self.easing {
                self.window.cwnd() * EASED_GROWTH_DIVISOR / (EASED_GROWTH_DIVISOR + 1)
            } else {
                self.window.cwnd() / 2
            };
            self.window.resize(built_it);
            self.stop_watching();
        } else {
            self.window.end_slow_start();
            if self.overshoot == Overshoot::Drain {
                self.after_start = AfterStart::Watching {
                    rounds_left: OVERSHOOT_WATCH_ROUNDS,
                };
            }
        }
    }

    /// With [`Overshoot::Drain`], in the first round ends after a slow start that kept its window,
    /// a standing queue (beyond the noise) of two targets or more, on a path that reads as quiet
    /// ([`PathModel::is_noisy`]) and with the window at least [`OVERSHOOT_WINDOW`] pipes, is that
    /// slow start's overshoot: the exit read the queue as it began to rise, when the window had
    /// already grown by the round's acknowledgements to about twice the pipe, and the bytes past
    /// the pipe then stand for a whole minimum RTT. With a queue standing, the pipe is full and the
    /// delivery rate is the bottleneck's (or this flow's share of it), so the window goes at once
    /// to the pipe that rate fills plus the target's bytes (FAST's aim, `w * baseRTT / (baseRTT +
    /// q) + alpha`, read from the rate, which does not lag the window as the queue does), never
    /// below half: the window that built the queue. FAST's own step, halfway a round against a
    /// queue read a round late, takes three or four rounds to drain it, a tenth of a short
    /// transfer. The round after reads the queue of the window before the cut and does not shrink
    /// the window again. True where the window was cut.
    fn drain_overshoot(&mut self, queue: Duration, target: Duration) -> bool {
        let AfterStart::Watching { rounds_left } = self.after_start else {
            return false;
        };
        self.after_start = match rounds_left {
            1 => AfterStart::Settled,
            _ => AfterStart::Watching {
                rounds_left: rounds_left - 1,
            },
        };
        let path = self.path();
        let alpha = self.alpha(target);
        let pipe = path.recent_peak_rate(OVERSHOOT_WATCH_ROUNDS as usize) * self.base_rtt();
        let cwnd = self.window.cwnd() as f64;
        let overshoot = queue >= target.saturating_mul(2)
            && !path.is_noisy()
            && cwnd >= OVERSHOOT_WINDOW * (pipe + alpha);
        if !overshoot {
            return false;
        }
        let next = (pipe + alpha).max(cwnd / 2.0).min(cwnd);
        if let Some(yielding) = self.yielding.as_mut() {
            yielding.taken_out += cwnd - next;
        }
        self.window.resize(next as u64);
        self.after_start = AfterStart::Drained;
        true
    }

    /// A slow start's overshoot is no longer looked for (a cut has taken out its queue); a drain
    /// already made still holds the next round's update.
    fn stop_watching(&mut self) {
        if matches!(self.after_start, AfterStart::Watching { .. }) {
            self.after_start = AfterStart::Settled;
        }
    }

    /// FAST's `alpha`: the bytes of `target` queued at the flow's peak delivery rate.
    fn alpha(&self, target: Duration) -> f64 {
        target.as_secs_f64() * self.path().peak_rate()
    }

    /// Slow start ends on delay ([`Self::end_slow_start`]), noting whether the delivery rate was
    /// still growing ([`PathModel::pipe_filled`]): if it was, only the delay says the pipe is full.
    fn end_slow_start_on_delay(&mut self) {
        self.end_slow_start();
        self.delay_ended_start = !self.path().pipe_filled();
    }

    /// NewReno's slow start, taken up again where the delay ended it, once the queue that ended it
    /// proves not to be the flow's own: it has stood since, and it did not shrink as the window
    /// did (`did_not_shrink`, [`Self::next_owner`]'s test), while the delivery rate was still
    /// growing when it ended slow start. Such a queue is another flow's, or the path's:
    /// order-keeping jitter at a high rate holds nearly every packet behind a late one, a
    /// standing offset the delay cannot tell from a queue (Arun, Alizadeh and Balakrishnan,
    /// "Starvation in end-to-end congestion control", SIGCOMM 2022). In the shared mode the flow
    /// keeps NewReno's manners, and NewReno's slow start ends on a loss (RFC 9002 section 7.3.1),
    /// not where the delay ended it, far below the pipe, from where Reno's growth of a packet a
    /// round takes minutes to fill a fast path. A queue that shrank with the window, but outlasted
    /// what the window took out of it ([`Yielding`]), was mostly the flow's own: slow start stays
    /// over.
    fn resume_newreno_start(&mut self, did_not_shrink: bool) {
        if std::mem::take(&mut self.delay_ended_start) && did_not_shrink {
            self.window.reopen_slow_start(u64::MAX);
        }
    }

    /// NewReno's slow start, taken up again in the shared mode where the queue, below
    /// [`DEEP_QUEUE`] (read past the jitter), has stood for [`DROPLESS_SHARED_ROUNDS`] rounds with
    /// no congestion loss on a path that shows noise ([`PathModel::shows_noise`]). That queue is
    /// no AQM's, which drops while its queue stands above its target, nor a buffer-filler's, which
    /// grows past [`DEEP_QUEUE`]: it is the offset of order-keeping jitter that the noise floor
    /// has not learnt, read as a queue that does not answer the flow's shrinking. NewReno's manners
    /// there grow a packet a round from where a drain probe or a loss response left the window,
    /// far below a pipe that NewReno itself fills, since its slow start ends on a loss, not on
    /// delay (RFC 9002 section 7.3.1). The next congestion verdict ends it as it ends NewReno's.
    fn resume_dropless_start(&mut self, queue: Duration) {
        let rounds = self.path().rounds();
        let dropless = !self.contested
            && queue < DEEP_QUEUE
            && !self.window.in_slow_start()
            && self.path().shows_noise()
            && rounds >= self.dropless_since.saturating_add(DROPLESS_SHARED_ROUNDS);
        if dropless {
            self.dropless_since = rounds;
            self.window.reopen_slow_start(u64::MAX);
        }
    }

    /// Slow start's exit threshold has been reached ([`Self::delay_exit_reached`]): it ends, or,
    /// where the delay's spread beyond its trend could have made that queue, holds for a round to
    /// confirm it ([`DelayExitCheck`]).
    fn on_delay_exit(&mut self, queue: Duration) {
        let path = self.path();
        let jitter = path.trendless_jitter();
        if jitter >= path.slow_start_exit()
            && jitter > path.own_burst_step().saturating_mul(SLOW_START_BURST_STEPS)
            && self.failed_exit_checks < MAX_FAILED_EXIT_CHECKS
        {
            self.exit_check = Some(DelayExitCheck {
                read_in: path.rounds(),
                least_queue: queue,
            });
        } else {
            self.end_slow_start_on_delay();
        }
    }

    /// At a round's end, a pending [`DelayExitCheck`] that has seen a whole round since it began:
    /// slow start ends if the queue stood all along, and goes on if it fell below the exit
    /// threshold (read as it stands: the noise beyond the trend was passed over when the
    /// threshold was read, and what is asked now is whether the queue ever fell). One that slow
    /// start no longer needs (another flow's queue was met; a loss response clears it too)
    /// lapses.
    fn confirm_delay_exit(&mut self) {
        let Some(check) = self.exit_check else {
            return;
        };
        if !self.window.in_slow_start() || !matches!(self.owner, QueueOwner::Own { .. }) {
            self.exit_check = None;
        } else if self.path().rounds() >= check.read_in + 2 {
            self.exit_check = None;
            if check.least_queue >= self.path().slow_start_exit() {
                self.end_slow_start_on_delay();
            } else {
                self.failed_exit_checks += 1;
            }
        }
    }

    /// The queue of the last few frames, where it ends slow start on delay: no check is pending,
    /// the queue is the flow's own, slow start does not end by the rate on this path
    /// ([`Self::starts_by_rate`]), and that queue, read past the noise that is not the flow's own
    /// bursts, reaches the exit threshold.
    fn delay_exit_reached(&self) -> Option<Duration> {
        // A pending check is already waiting on this threshold: nothing to read per frame.
        if self.exit_check.is_some()
            || !self.window.in_slow_start()
            || !matches!(self.owner, QueueOwner::Own { .. })
            || self.starts_by_rate()
        {
            return None;
        }
        let queue = self.path().recent_queue()?;
        // The noise (which reads the recent frames' rates) only where the raw queue would end
        // slow start: it is asked on every frame.
        let exit = self.path().slow_start_exit();
        let reached =
            queue >= exit && queue.saturating_sub(self.path().noise_beyond_trend()) >= exit;
        reached.then_some(queue)
    }

    /// On a noisy path, the jitter ([`PathModel::jitter`]): the standing queue moves by that
    /// much from round to round, so it is passed over before the queue counts as long or short
    /// for whose queue it is.
    fn noise_margin(&self) -> Duration {
        if self.path().is_noisy() {
            self.path().jitter()
        } else {
            Duration::ZERO
        }
    }

    /// A rate probe, while the path [`PathModel::is_noisy`]: where FAST's update would hold or
    /// shrink the window, every `PROBE_INTERVAL` rounds the window rises by a quarter and is held
    /// for `PROBE_HOLD` rounds, so that the path model sees whether the delivery rate follows
    /// (the queue it read was noise) or not (the pipe was full, and FAST's update then takes the
    /// probe's queue out). Never in a loss episode's recovery: its losses already say the pipe is
    /// full, and an AQM that holds the queue above its target drops a larger share at each update
    /// (PIE's probability climbs while the delay stands), so a probe there adds a quarter to a
    /// window whose packets are dropped by the hundred, and every one of them is a gap the
    /// receiver holds until its retransmission arrives (a quinn receiver closes the connection
    /// past 1024). Nor above the cap a window that lost more than a channel left on the floor
    /// ([`Self::cap_floor`], BBRv3's `inflight_hi`): that cap grows back by an eighth a round,
    /// and a probe of a quarter past it would refill the queue whose drops set it, a round after
    /// the recovery ends, while an AQM's drop probability still stands high. True while the
    /// update is to wait.
    fn rate_probe(&mut self, queue: Duration, target: Duration) -> bool {
        if self.probe_hold > 0 {
            self.probe_hold -= 1;
            return true;
        }
        self.since_probe = self.since_probe.saturating_add(1);
        let limited = self.classifier().rate_limit().is_some();
        let recovering = self.window.state() == State::Recovery;
        if queue < target || limited || recovering || !self.path().is_noisy() {
            return false;
        }
        if self.since_probe < PROBE_INTERVAL {
            return false;
        }
        let cwnd = self.window.cwnd() as f64;
        let probed = (cwnd * PROBE_GAIN).min(self.floor_cap.unwrap_or(f64::INFINITY));
        if probed <= cwnd {
            return false;
        }
        self.since_probe = 0;
        self.probe_hold = PROBE_HOLD - 1;
        self.window.resize(probed as u64);
        true
    }

    /// On a noisy path, the window never falls below `NOISY_CWND_GAIN` times the pipe the
    /// delivery rate of the last `NOISY_BW_ROUNDS` rounds shows (BBR's `cwnd_gain * BtlBw *
    /// RTprop`, draft-cardwell-iccrg-bbr-congestion-control section 4.6.4): there the delay
    /// cannot tell the flow's queue from noise, and a controller that converges to a delay
    /// range narrower than the noise can starve (Arun, Alizadeh and Balakrishnan, "Starvation
    /// in end-to-end congestion control", SIGCOMM 2022). The rate can: while the pipe is not
    /// full, a larger window delivers more, and the floor rises with it. With
    /// [`NoisyFloor::Read`], the floor is one pipe once a rise of the window has read the pipe
    /// full.
    fn hold_rate_floor(&mut self, queue: Duration) {
        if !self.floor_in_force(queue) {
            return;
        }
        let path = self.path();
        let gain = match self.noisy_floor {
            NoisyFloor::Read if path.last_pipe_read_full() => FULL_PIPE_CWND_GAIN,
            _ => NOISY_CWND_GAIN,
        };
        let mut floor =
            gain * path.recent_peak_rate(NOISY_BW_ROUNDS) * path.min_rtt().as_secs_f64();
        if let Some(cap) = self.floor_cap.as_mut() {
            floor = floor.min(*cap);
            *cap *= FLOOR_CAP_GROWTH;
        }
        if (self.window.cwnd() as f64) < floor {
            self.window.resize(floor as u64);
        }
    }

    /// Whether `queue` is one the noisy path's window floor can have built by itself: the path
    /// has shown noise, no buffer-filler has been met lately (one that comes and goes shows as
    /// noise too), and the queue is within what the floor queues.
    fn within_rate_floor_queue(&self, queue: Duration) -> bool {
        let path = self.path();
        path.shows_noise()
            && !self.filler_near()
            && queue < path.min_rtt().mul_f64(NOISY_CWND_GAIN - 1.0)
    }

    /// Whether the flow has met a buffer-filler within the last [`FLOOR_QUIET_ROUNDS`] rounds.
    fn filler_near(&self) -> bool {
        self.contested_at
            .is_some_and(|at| self.path().rounds() < at.saturating_add(FLOOR_QUIET_ROUNDS))
    }

    /// Whether a packet sent at `sent` was of the first flight: sent before the first ACK frame
    /// arrived, or as it arrived, under the initial window. A loss there is answered with a cut
    /// that keeps slow start going ([`Window::reduce_in_slow_start`]): it says nothing of the
    /// path's capacity, since the flow had built no queue, and losing most of that flight is what
    /// a lost handshake packet does. A QUIC client cannot decrypt the 1-RTT packets that arrive
    /// before the handshake's last messages (RFC 9001 section 5.7), and quinn's drops them rather
    /// than buffer them; the sender, reading more than half its window lost, would end slow
    /// start at half the initial window on a path of any size. The cut is still a cut: a receiver
    /// that claims losses buys no more of them than anywhere else.
    fn in_first_flight(&self, sent: Instant) -> bool {
        self.first_ack_at.is_none_or(|at| sent <= at)
    }

    /// Whether a loss that met a queue above the guard is one the noisy path's window floor
    /// keeps: the floor is in force at the queue the lost packet met (read past the noise floor
    /// and the jitter, [`Self::floor_in_force`]), the loss was a queue's (not a rate limit's),
    /// and the window has lost no more than BBRv3's 2 % (`BBRLossThresh`,
    /// draft-cardwell-ccwg-bbr section 5.5.10), and no more than a receiver holds gaps for
    /// ([`beyond_a_channel`]). On such a path the delay cannot tell the queue the floor keeps by
    /// design from noise, and losses that sparse are the channel's, as BBRv3 reads them; a buffer
    /// the floor overflows drops more than that within a window, and an AQM that holds the
    /// floor's queue drops more and more until it does (CoDel's drop rate grows with its count),
    /// which then caps the floor. A window under fifty packets loses more than 2 % with one loss,
    /// so the guard decides there. Where the classifier reads the losses' placement
    /// ([`LossRead::Placement`]) and the recent losses followed the queue, it passes over none:
    /// a channel's losses fall wherever the queue stands, and those did not. The queue and cause
    /// read are those of this loss only where the
    /// classifier judged it: a persistent congestion or an ECN mark leaves them as the last loss
    /// left them.
    fn floor_passes_over(&self, event: &CongestionEvent, losses_in_window: u64) -> bool {
        if event.is_ecn()
            || event.persistent
            || self.classifier().last_cause() != Some(LossCause::Queue)
            || self.classifier().losses_follow_queue()
            || beyond_floor_loss_share(event, losses_in_window)
            || beyond_a_channel(event, losses_in_window)
        {
            return false;
        }
        self.floor_in_force(self.past_noise(self.classifier().last_queue_met()))
    }

    /// Whether the noisy path's window floor holds at `queue` (beyond the noise): the queue is
    /// the flow's own, slow start is over, no rate limit is remembered (a policer's drops are
    /// answered as NewReno's), and `queue` is one the floor can have built by itself
    /// ([`Self::within_rate_floor_queue`]).
    fn floor_in_force(&self, queue: Duration) -> bool {
        matches!(self.owner, QueueOwner::Own { .. })
            && !self.window.in_slow_start()
            && self.classifier().rate_limit().is_none()
            && self.within_rate_floor_queue(queue)
    }

    /// A window lost more than a channel loses (BBRv3's `inflight_hi`, draft-cardwell-ccwg-bbr
    /// section 5.5.10): the noisy path's floor is capped at the window the loss response left,
    /// or, within an episode already answered, at most there. The floor would otherwise undo the
    /// answer to an AQM's drops; and the losses of one episode run on after its first: a slow
    /// start's overshoot into a shallow buffer loses thousands of packets after the one that cut
    /// the window, and the delay noise those losses stir up must not raise the window to twice
    /// the pipe while they last.
    fn cap_floor(&mut self, reduced: bool) {
        let cwnd = self.window.cwnd() as f64;
        self.floor_cap = match self.floor_cap {
            Some(cap) if !reduced => Some(cap.min(cwnd)),
            _ => Some(cwnd),
        };
    }

    /// The own mode's yielding test ([`Yielding`]), at a round's end with `queue` (beyond the
    /// noise) standing: where the flow has yielded the whole queue and it still stands, the queue
    /// is shared. Not in slow start (the window grows), not on a noisy path (its queue reads are
    /// the noise's as much as a queue's, and the window floor holds the window there), and not
    /// within the queue the floor keeps.
    fn read_yielding(&mut self, queue: Duration, target: Duration) {
        let reads_yielding = matches!(self.owner, QueueOwner::Own { .. })
            && !self.window.in_slow_start()
            && queue >= target
            && !self.path().is_noisy()
            && !self.within_rate_floor_queue(queue);
        if !reads_yielding {
            self.yielding = None;
            return;
        }
        let peak_rate = self.path().peak_rate();
        let yielding = self.yielding.get_or_insert(Yielding {
            highest: queue,
            ..Yielding::default()
        });
        if yielding.outlasted(queue, peak_rate) {
            self.owner = QueueOwner::Shared { short_rounds: 0 };
            self.yielding = None;
        }
    }

    fn next_owner(&self, queue: Duration, target: Duration) -> QueueOwner {
        match self.owner {
            QueueOwner::Shared { short_rounds } if queue < target => {
                if short_rounds + 1 >= SHARED_EXIT_ROUNDS {
                    QueueOwner::OWN
                } else {
                    QueueOwner::Shared {
                        short_rounds: short_rounds + 1,
                    }
                }
            }
            QueueOwner::Shared { .. } => QueueOwner::Shared { short_rounds: 0 },
            QueueOwner::Own { .. } if queue < target.saturating_mul(2) => QueueOwner::OWN,
            // The queue the rate floor keeps on a path that has shown noise: the update cannot
            // shrink it, and that is no sign of another flow. The floor queues at most
            // `NOISY_CWND_GAIN - 1` minimum RTTs; a deeper queue is another flow's.
            QueueOwner::Own { .. } if self.within_rate_floor_queue(queue) => QueueOwner::OWN,
            QueueOwner::Own {
                long_rounds,
                queue_before,
            } => {
                let before = if long_rounds == 0 {
                    queue
                } else {
                    queue_before.max(queue)
                };
                let shrunk = queue.as_secs_f64() <= (1.0 - SHRINK_EFFECT) * before.as_secs_f64();
                if long_rounds + 1 >= ROUNDS_BEFORE_SHARED
                    && (!shrunk || self.holds_too_little_of(queue))
                {
                    QueueOwner::Shared { short_rounds: 0 }
                } else {
                    QueueOwner::Own {
                        long_rounds: long_rounds + 1,
                        queue_before: before,
                    }
                }
            }
        }
    }

    /// Whether the flow holds less than [`HELD_QUEUE_SHARE`] of the bytes `queue` stands for at
    /// the flow's peak delivery rate: a standing queue holds its delay times the bottleneck's rate,
    /// which the flow's peak rate reaches where the capacity has not fallen since, and a flow's own
    /// queue is part of its data in flight. A queue that falls because another flow drains what its
    /// start-up queued (BBR's drain) passes the shrinking test however little of it is this flow's;
    /// this reads what is left. What the flow holds is the larger of its window and the most it
    /// had in flight this round: the round's queue was built from the packets it acknowledges,
    /// sent under the window before the round's cuts, and a cut takes no packet out of flight. On
    /// a pipe of a few packets, a slow start that the rate ends overshoots it several times over
    /// (the rate's check waits three rounds), and FAST's update cuts the window below half the
    /// queue that leaves while the queue still drains.
    fn holds_too_little_of(&self, queue: Duration) -> bool {
        let bytes = queue.as_secs_f64() * self.path().peak_rate();
        let held = self.window.cwnd().max(self.round_flight);
        (held as f64) < HELD_QUEUE_SHARE * bytes
    }

    /// FAST TCP's update with `gamma = 1/2`: halfway to the window that would leave `target`
    /// queued, at most doubling. The RTT of an empty queue is [`Self::base_rtt`], `queue` the
    /// standing queue above the noise floor.
    fn fast_update(&mut self, queue: Duration, target: Duration) {
        let after_drain = self.after_start == AfterStart::Drained;
        if after_drain {
            self.after_start = AfterStart::Settled;
        }
        let cwnd = self.window.cwnd() as f64;
        let base_rtt = self.base_rtt();
        let min_rtt = self.path().min_rtt().as_secs_f64();
        if min_rtt <= 0.0 {
            return;
        }
        let alpha = self.alpha(target);
        let aim = cwnd * base_rtt / (base_rtt + queue.as_secs_f64()) + alpha;
        let mut next = (cwnd + (aim - cwnd) / 2.0).min(2.0 * cwnd);
        // Where a rate limit has been found, the window grows as Reno's equal at CUBIC's cut, and
        // probes above the limit by a target a round at most, however empty the queue (the
        // policer has none).
        let limit = self.classifier().rate_limit().map(|l| l as f64);
        let refill_pipe = self.refill_pipe();
        if queue < target && cwnd < refill_pipe {
            // Below a window the path has carried without a queue: FAST would add only alpha a
            // round, which takes seconds to refill a long pipe after a loss response. Go back
            // by a quarter a round, never past it.
            next = next.max((cwnd * REFILL_GROWTH).min(refill_pipe));
        }
        if let Some(limit) = limit {
            next = next.min(limit.max(cwnd));
            if !self.classifier().rate_limit_is_overshoot() {
                let mss = self.window.mss() as f64;
                next = next.min(cwnd + reno_friendly_alpha(RATE_BETA) * mss);
            }
        }
        if self.window.state() == State::Recovery || after_drain {
            // The loss response (or an overshoot's drain) took out the queue this round read: it
            // predates the cut.
            next = next.max(cwnd);
        }
        if let Some(yielding) = self.yielding.as_mut() {
            // Net of what the update gave back: a queue of the flow's own that settles between one
            // and two targets (where the capacity has fallen below the peak rate) moves the window
            // down and up by turns, and only the net is taken out of flight.
            yielding.taken_out = (yielding.taken_out + cwnd - next).max(0.0);
        }
        self.window.resize(next as u64);
    }

    /// The pipe a refill may reach (bytes): the one the flow's peak delivery rate fills, or, for
    /// [`AFTER_SHARED_ROUNDS`] after it left the shared mode, the one the best rate of those rounds
    /// fills. The peak rate is the whole link's when the flow once had it to itself; behind an
    /// AQM the shared queue drains now and then while the other flow is still there, and a refill
    /// to the whole link's pipe each time would take more than NewReno's share from it.
    fn refill_pipe(&self) -> f64 {
        let path = self.path();
        let just_shared = self
            .left_shared_at
            .is_some_and(|at| path.rounds() < at.saturating_add(AFTER_SHARED_ROUNDS));
        let rate = if just_shared {
            path.recent_peak_rate(NOISY_BW_ROUNDS)
        } else {
            path.peak_rate()
        };
        rate * path.min_rtt().as_secs_f64()
    }

    /// Whether a loss leaves a contest's reopened slow start going: the loss met the full buffer
    /// of a buffer-filler ([`Self::met_full_buffer`]) before the window has regained the share
    /// the flow held. Such a buffer stays full whatever this flow does, so its losses say
    /// nothing about this flow's share, and ending slow start on the first of them leaves the
    /// window where yielding left it (a CUBIC flow that fills a deep buffer overflows it every
    /// few rounds). A CE mark still ends it (an AQM's signal, whatever queue a loss last met), and
    /// so do more losses in one window than a channel explains ([`beyond_a_channel`]): a full
    /// buffer drops what overshoots it, and past half the window, or past what a receiver holds
    /// gaps for, the overshoot is this flow's.
    fn passes_over_contest_loss(&self, event: &CongestionEvent, losses_in_window: u64) -> bool {
        let in_contest_start = self.contest_start
            && self.window.in_slow_start()
            && matches!(self.owner, QueueOwner::Shared { .. });
        in_contest_start
            && !event.is_ecn()
            && !beyond_a_channel(event, losses_in_window)
            && self.met_full_buffer()
            && (self.window.cwnd() as f64) < self.held_window_now()
    }

    /// Whether the latest loss met a full drop-tail buffer: a queue (beyond the noise floor, as
    /// [`Self::deepest_queue`] is read) of at least [`DEEP_QUEUE`] and [`FULL_BUFFER_SHARE`] of
    /// the deepest the contest has seen. A drop-tail buffer drops only when full, where an AQM
    /// drops at queues well short of the deepest it lets stand: PIE's start-up allowance lets a
    /// slow start queue 100 ms, and while PIE pulls that queue back towards its 15 ms target its
    /// drops meet less and less. There the other flow's share is held by drops that meet both
    /// flows alike, and a slow start that ran through them would take it.
    ///
    /// The deepest queue must also have stopped deepening ([`DEEPEST_SETTLED_ROUNDS`]): a full
    /// buffer is a ceiling, and a queue that still stands deeper round after round is one this
    /// flow's own slow start is building. Under fair queueing that is the flow's own sub-queue,
    /// read as shared because the scheduler halved the flow's rate when another flow arrived; its
    /// AQM drops this flow's packets and no one else's, and passing over them would let the
    /// window run on past what a receiver holds gaps for.
    fn met_full_buffer(&self) -> bool {
        let full = self
            .deepest_queue
            .mul_f64(FULL_BUFFER_SHARE)
            .max(DEEP_QUEUE);
        let met = self.classifier().last_queue_met();
        let settled = self
            .deepened_at
            .is_none_or(|round| self.path().rounds() >= round + DEEPEST_SETTLED_ROUNDS);
        settled && met.saturating_sub(self.path().noise_floor()) >= full
    }

    fn reduce(&mut self, event: &CongestionEvent, losses_in_window: u64) {
        if event.is_ecn() {
            self.window.reduce(event.now, self.ecn_beta);
            return;
        }
        if self.in_first_flight(event.sent) {
            self.window.reduce_in_slow_start(event.now, self.beta);
            return;
        }
        let cwnd = self.window.cwnd();
        match (self.classifier().last_cause(), self.owner) {
            // A policer: a limit shared with other flows, answered by the AIMD pair that takes
            // Reno's share (the growth is in `fast_update`).
            (Some(LossCause::Rate), _) => self.window.reduce(event.now, RATE_BETA),
            // Half a window lost in one window: at most half of it arrived, whatever queue the
            // delays show (a receiver that hides the queue in its ACK Delay shows none), so
            // taking out the queue met could leave the window where it was.
            _ if half_window_lost(event, losses_in_window) => {
                self.window.reduce(event.now, self.beta)
            }
            // The flow's own queue overflowed (or met an AQM): take out the queue the lost
            // packet met, which keeps the pipe full (never below NewReno's cut).
            (_, QueueOwner::Own { .. }) => {
                let base_rtt = self.base_rtt();
                let met = self.classifier().last_queue_met();
                let queue = met.saturating_sub(self.path().noise_floor()).as_secs_f64();
                let built_it = self
                    .sent_windows
                    .at(event.sent)
                    .map_or(cwnd, |w| w.max(cwnd));
                let drained = if base_rtt > 0.0 {
                    (built_it as f64 * base_rtt / (base_rtt + queue)) as u64
                } else {
                    cwnd
                };
                let floor = (cwnd as f64 * self.beta) as u64;
                self.window.reduce_to(event.now, drained.clamp(floor, cwnd));
            }
            // A queue another flow keeps: the competing rule's cut.
            (_, QueueOwner::Shared { .. }) => {
                let beta = self.shared_beta();
                self.window.reduce(event.now, beta);
                if self.contested {
                    // Until the window has regained the share the flow held, each loss meets a
                    // buffer the other flow keeps full, and that share stays CUBIC's W_max.
                    let held = self.held_window_now();
                    self.regaining &= (cwnd as f64) < held;
                    let before = if self.regaining { held as u64 } else { cwnd };
                    self.shared_growth.on_reduction(before, self.window.mss());
                    self.drain.on_reduction(beta);
                }
            }
        }
    }

    /// What a congestion verdict tells beyond the loss response: a window that lost more than a
    /// channel does caps the noisy path's floor ([`Self::cap_floor`]); one that overflowed a
    /// buffer ([`OVERFLOW_SHARE`]) leaves rounds that read no pipe, which the path model forgets;
    /// and the shared queue has dropped ([`Self::resume_dropless_start`]).
    fn note_congestion(&mut self, event: &CongestionEvent, losses_in_window: u64, reduced: bool) {
        if beyond_floor_loss_share(event, losses_in_window) {
            self.cap_floor(reduced);
        }
        if lost_share_of_window(event, losses_in_window, OVERFLOW_SHARE) {
            self.discriminator
                .classifier_mut()
                .path_mut()
                .forget_rounds();
        }
        self.dropless_since = self.path().rounds();
    }
}

/// Whether a window lost more than BBRv3's 2 % (`BBRLossThresh`, draft-cardwell-ccwg-bbr section
/// 5.5.10): more than a channel loses, as the noisy path's floor reads it.
fn beyond_floor_loss_share(event: &CongestionEvent, losses_in_window: u64) -> bool {
    losses_in_window.saturating_mul(FLOOR_LOSS_SHARE) > event.window_packets
}

impl Algorithm for ShortQueueAlgorithm {
    fn on_ack(&mut self, ack: &Ack) {
        self.discriminator.on_ack(ack);
        if !self.window.admits_growth(ack) {
            return;
        }
        // With the queue its own, the flow grows per ACK only in slow start; FAST's update moves
        // the window once a round after that.
        match self.owner {
            QueueOwner::Own { .. } if !self.window.in_slow_start() => {}
            // A delay exit waiting for its confirmation holds the window.
            QueueOwner::Own { .. } if self.exit_check.is_some() => {}
            QueueOwner::Own { .. } if self.easing => {
                self.window.grow_reno(ack.bytes / EASED_GROWTH_DIVISOR)
            }
            QueueOwner::Own { .. } => self.window.grow_reno(ack.bytes),
            // A drain probe holds the window where it put it (CUBIC's Reno-friendly estimate
            // would restore it at the next ACK).
            QueueOwner::Shared { .. } if self.drain.is_draining() => {}
            QueueOwner::Shared { .. } if self.contested => {
                self.shared_growth.on_ack(&mut self.window, ack)
            }
            QueueOwner::Shared { .. } => self.window.grow_reno(ack.bytes),
        }
    }

    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.first_ack_at.get_or_insert(batch.now);
        self.slow_start
            .on_ack_batch(batch.now, self.window.in_slow_start());
        let flight = batch.in_flight.saturating_add(batch.acked_bytes);
        self.round_flight = self.round_flight.max(flight);
        self.discriminator.on_ack_batch(batch);
        let rounds = self.path().rounds();
        let recent = self.path().recent_queue();
        if let (Some(check), Some(queue)) = (&mut self.exit_check, recent) {
            check.least_queue = check.least_queue.min(queue);
        }
        self.easing = self.eases_start();
        if rounds != self.rounds_seen {
            self.rounds_seen = rounds;
            self.on_round_end();
            self.round_flight = 0;
            self.sent_windows.note(batch.now, self.window.cwnd());
        } else if let Some(queue) = self.delay_exit_reached() {
            self.on_delay_exit(queue);
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent) -> Decision {
        let mut event = self.window.annotate(event);
        event.sent_in_slow_start = self.slow_start.contains(event.sent);
        let event = &event;
        let (mut verdict, mut evidence) = self.discriminator.judge(event);
        if verdict == Verdict::Congestion
            && self.floor_passes_over(event, evidence.losses_in_window)
        {
            verdict = Verdict::Random;
            evidence.reason = "the queue a noisy path's window floor keeps, losses within 2 %";
        }
        let reduced = if event.persistent {
            self.window.collapse(event.now, self.beta);
            self.discriminator
                .classifier_mut()
                .path_mut()
                .restart_full_pipe_check();
            true
        } else if self.passes_over_contest_loss(event, evidence.losses_in_window) {
            false
        } else if verdict == Verdict::Congestion && self.window.is_new_episode(event.sent) {
            self.reduce(event, evidence.losses_in_window);
            true
        } else {
            false
        };
        if verdict == Verdict::Congestion {
            self.note_congestion(event, evidence.losses_in_window, reduced);
        }
        if reduced {
            self.delay_ended_start = false;
            // A cut ends slow start, or restarts it from a small window (after persistent
            // congestion): a pending exit check read the queue of the window before.
            self.exit_check = None;
            if event.persistent {
                self.failed_exit_checks = 0;
            }
            self.contest_start = false;
            self.stop_watching();
            self.sent_windows.note(event.now, self.window.cwnd());
        }
        Decision {
            verdict,
            reduced,
            evidence,
        }
    }

    fn window(&self) -> &Window {
        &self.window
    }

    fn window_mut(&mut self) -> &mut Window {
        &mut self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slow start's span holds what its window sent up to the first ACK frame after its end,
    /// and a reopened one does not reach back over what avoidance sent before it.
    #[test]
    fn a_slow_start_s_span_holds_what_its_window_sent_and_not_what_avoidance_sent() {
        let epoch = Instant::now();
        let at = |ms: u64| epoch + Duration::from_millis(ms);
        let mut span = SlowStartSpan::default();
        assert!(!span.contains(at(0)));
        span.on_ack_batch(at(10), true);
        span.on_ack_batch(at(20), true);
        assert!(
            span.contains(at(0)) && span.contains(at(25)),
            "open until it ends"
        );
        span.on_ack_batch(at(30), false);
        assert!(span.contains(at(25)) && span.contains(at(30)));
        assert!(!span.contains(at(31)), "avoidance sent it");
        span.on_ack_batch(at(50), false);
        span.on_ack_batch(at(60), true);
        assert!(!span.contains(at(55)), "sent before the reopened start");
        assert!(span.contains(at(60)) && span.contains(at(70)));
    }
}
