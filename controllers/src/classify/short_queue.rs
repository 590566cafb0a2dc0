use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::loss_placement::{LossPlacement, LossRead, QueueReadings};
use super::{half_window_lost, Classification, Classifier};
use crate::event::{Ack, AckBatch, CongestionEvent, Verdict};
use crate::growth::{in_seconds, reno_friendly_alpha, Cubic};

/// ACK frames remembered for looking up the queue a lost packet met.
const RECENT_FRAMES: usize = 64;
/// Frames on each side of a lost packet whose queue it is read from.
const NEIGHBOURS: usize = 3;
/// BBR's full-bandwidth check (draft-cardwell-iccrg-bbr-congestion-control section 4.3.1.2): the
/// pipe is full once the delivery rate has not grown by a quarter over its best in three rounds.
const FULL_PIPE_GROWTH: f64 = 1.25;
const FULL_PIPE_ROUNDS: u32 = 3;
/// Rounds over which the largest delivery rate sets the packet time of the target: a flow that
/// shares the link delivers less than the link's rate, and a target in packet times of its own
/// share would grow as the share shrinks.
const PEAK_ROUNDS: usize = 100;
/// The smallest queue the flow aims for, and the smallest guard: below a millisecond the RTT
/// says little (clock noise, and pacing bursts of a few packets).
const MIN_TARGET: Duration = Duration::from_millis(1);
const MIN_GUARD: Duration = Duration::from_millis(3);
/// The guard's base is at most this, or [`GUARD_TARGETS`] targets where they are more: CoDel and
/// FQ-CoDel (RFC 8289, RFC 8290) drop packets that waited more than 5 ms, and their drops must
/// meet a queue above the guard.
const AQM_GUARD: Duration = Duration::from_millis(4);
/// The guard's base in targets where they come to more than [`AQM_GUARD`] (a slow link, whose
/// target of [`TARGET_PACKETS`] packet times is a few milliseconds): the flow keeps one target
/// queued, and the guard stands one packet time above it. The queue moves by about a packet as
/// the packets of flows that share it interleave; the receiver's bursts and the delay's spread
/// have terms of their own in the guard.
const GUARD_TARGETS: f64 = 1.5;
/// Packets the flow keeps queued at the bottleneck when alone, as Vegas's alpha: enough that the
/// link never idles between bursts, and the queue stays a few packet times long.
const TARGET_PACKETS: f64 = 2.0;
/// Ack-eliciting packets a quinn receiver acknowledges per frame (RFC 9000 section 13.2.2's
/// "every second packet"), the receiver the target and the guard were measured with.
const QUINN_ACKED_PER_FRAME: f64 = 2.0;
/// Weight of a frame in the average of packets acknowledged per frame.
const ACKED_PER_FRAME_GAIN: f64 = 1.0 / 16.0;
/// The share of a window lost, with no queue, beyond which the losses are not a channel's: a
/// policer drops whatever exceeds its rate, so its loss rate grows with the window, while the
/// lossiest channel the scoreboard measures loses 3 % (RFC 8085 section 3.1.10's circuit
/// breaker, and BBRv3's loss ceiling, are the same idea: a loss rate far above the path's
/// normal is a limit, not noise). A fifth: a Gilbert-Elliott channel's bursts rarely reach it, and
/// one that does is a single run of lost packets ([`RUN_REVEALS`]).
const RATE_LOSS_SHARE: u64 = 5;
/// The fewest lost packets that can show a rate limit, so that a small window's unlucky round is
/// not a policer.
const MIN_RATE_LOSSES: u64 = 4;
/// The most loss events one run of consecutive lost packets can make. quinn declares a packet
/// lost once one sent three packets later is acknowledged (RFC 9002 section 6.1.1,
/// `kPacketThreshold`): the first ACK after a run reveals all of it but its last two packets, and
/// the next ACKs at most one each. A channel's fade loses such a run (a Gilbert-Elliott channel's
/// bad state); a rate limit drops what exceeds its rate and passes the rest, so its losses are
/// interleaved with delivered packets and revealed by more ACKs than that.
const RUN_REVEALS: u64 = 3;
/// Lost packets in a window that renew a remembered rate limit (see [`ShortQueue::classify`]).
const RENEW_LOSSES: u64 = 3;
/// Rounds a found rate limit is remembered after the last loss that showed it, beyond the
/// rounds the window takes to grow back to it ([`RateLimit::found`]).
const RATE_LIMIT_ROUNDS: u64 = 16;
/// The window factor on a rate limit's losses: CUBIC's (RFC 9438 section 4.6), with the growth
/// that makes it Reno's equal ([`reno_friendly_alpha`]).
pub(crate) const RATE_BETA: f64 = Cubic::BETA;
/// Rounds on each side of the comparison that finds the delay noise floor: enough that the
/// delivery rate, whose round-to-round spread on a jittered path is a tenth or more, averages to
/// a few hundredths.
const NOISE_ROUNDS: usize = 3;
/// The rise of the data in flight, between the two sides, that the comparison reads.
const NOISE_GROWTH: f64 = 0.1;
/// The share of a rise of the data in flight by which the delivery rate must rise for the pipe
/// to have been not full ([`PathModel::learn_noise`]).
const RISE_FOLLOWED: f64 = 0.5;
/// The same for a fall: more, since a window that shrinks across the pipe's edge (the capacity
/// dropped, or FAST's update overshot it) loses rate only for its part below the pipe, while the
/// rounds above the edge read a queue that was partly real.
const FALL_FOLLOWED: f64 = 0.75;
/// What a comparison that finds the pipe full keeps of the noise floor.
const NOISE_KEPT: f64 = 0.75;
/// One over the share of recent ACK frames whose arrival rate [`PathModel::own_burst_step`]
/// reads (the fastest eighth), rather than the single fastest: a host that hands a few frames
/// over at one instant now and then (quinn reads a receive batch at one `now`) leaves the bound,
/// where order-keeping jitter or a bursty link clumps many of them.
const FAST_FRAMES_SHARE: usize = 8;
/// Frames [`PathModel::burst_pipe`] needs timed: half of [`RECENT_FRAMES`], so that the fastest
/// eighth is four frames or more.
const PIPE_FRAMES: usize = RECENT_FRAMES / 2;
/// The spread, in [`PathModel::own_burst_step`]s, that the sawtooth of the flow's own bursts
/// stays under on average: a burst's queue rises a step a frame and falls at once when the
/// burst has passed, so a step's mean distance from the trend stays under two steps, and the
/// spread (twice that mean) under four; the frame-weighted average overshoots that for a few
/// frames after each fall.
const OWN_BURST_STEPS: u32 = 4;

/// What made a loss congestion, for the response: a queue is answered as NewReno answers it
/// (multiplicative decrease), a rate limit by falling back to the rate the path delivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossCause {
    /// The lost packet met a standing queue above the guard, or half the window was lost.
    Queue,
    /// More of the window lost than a channel loses, with no queue: a rate limit (a policer).
    Rate,
    /// A channel loss: the queue was short and the window within what the path delivers.
    Random,
}

/// What the path model reads as delay noise ([`PathModel::is_noisy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NoiseRead {
    /// The frames' delay spread beyond the target (the default).
    #[default]
    Spread,
    /// That, or frames arriving clumped ([`PathModel::own_burst_step`] is zero: an eighth or
    /// more of the recent frames at one instant). Per-packet jitter that keeps order holds each
    /// packet behind a late one, so the delay falls at one millisecond per millisecond between
    /// late packets and jumps at the next; at a high packet rate the frames step by about two
    /// frame gaps whatever the jitter's size, and the spread reads far below the target while
    /// the jitter's offset stands above the guard. The clumps show that jitter where the spread
    /// does not, and the noise floor, the rate probes and the window floor then work there. Where
    /// a peer shares such a path, the window floor's second pipe of queue and its loss bound also
    /// hold a window that an AQM's drops or the peer's arrival should cut: a tradeoff, measured
    /// in docs/RESULTS.md ("Reading clumps as noise").
    Clumps,
}

/// What the flow knows of its path from its ACKs: round trips, the standing queue, the
/// peak delivery rate, and the queue each recent ACK frame's newest packet met.
///
/// A round begins when an ACK arrives and ends when a packet sent after that is acknowledged.
/// The *standing queue* is, averaged over a round, the smallest queueing delay (corrected RTT
/// sample less the minimum RTT) of the last six ACK frames: per-packet jitter, a delayed ACK or
/// an ACK-compressed burst only ever raises a sample, so a short minimum passes over them (Copa's
/// `RTTstanding`, Arun and Balakrishnan, NSDI 2018, section 2.1), and the average over the round
/// passes over the troughs a paced flow's queue shows between its bursts. The peak rate is the
/// largest per-round delivery rate over the last hundred rounds (a longer window than BBR's
/// `BtlBw` filter, draft-cardwell-iccrg-bbr-congestion-control section 4.5.2, since it sets the
/// packet time of the target, which must not grow as a shared flow's share shrinks).
#[derive(Debug, Clone, PartialEq)]
pub struct PathModel {
    /// `(sent, raw RTT sample, queueing)` of the newest packet of each recent ACK frame, in ACK
    /// order; the queueing delay without the ACK delay once it has been recovered.
    frames: VecDeque<(Instant, Duration, Duration)>,
    round_start: Option<Instant>,
    /// Sum (seconds) and count of the short-window minima of the current round.
    round_queue_sum: f64,
    /// The best delivery rate of [`Self::pipe_filled`]'s check, and the rounds since it last
    /// grew by [`FULL_PIPE_GROWTH`].
    full_pipe_rate: f64,
    rounds_without_growth: u32,
    /// Sum (seconds) of the same minima of the raw RTT samples, with the ACK Delay the receiver
    /// claims left in: what a receiver that lies in its ACK Delay cannot hide.
    round_raw_queue_sum: f64,
    /// Their mean over the last complete round.
    standing_raw: Duration,
    round_frames: u32,
    round_acked: u64,
    rounds: u64,
    standing: Option<Duration>,
    /// Delivery rates of the last [`PEAK_ROUNDS`] rounds, bytes per second, newest last.
    rates: VecDeque<f64>,
    /// The largest of them, worked out once per round.
    peak_rate: f64,
    min_rtt: Duration,
    mss: u64,
    /// Average ack-eliciting packets acknowledged per ACK frame.
    acked_per_frame: f64,
    /// Average absolute difference between successive frames' queueing delays, seconds.
    successive_difference: f64,
    /// Average signed difference between successive frames' queueing delays, seconds: the
    /// queue's trend. Like the absolute average, it reads each frame before its ACK Delay is
    /// recovered (at the next frame), so a receiver's timer adds to both, here as a rise.
    queue_drift: f64,
    /// Average absolute difference between a frame's step and the trend (`queue_drift`): the
    /// noise beyond the trend. A steady trend raises it only while `queue_drift` catches up
    /// with it (a rise of `s` a frame reads at most about `0.7 s` here, some fifteen frames in),
    /// which stays below the flow's own burst steps that a slow start's rise is made of.
    trendless_difference: f64,
    /// The same from the raw samples, the claimed ACK Delay left in.
    raw_successive_difference: f64,
    /// The spreads of the frames of the round, and their means over the last complete one.
    round_spread: RoundSpread,
    /// Steps averaged into the three above, and into the raw one.
    steps: u32,
    raw_steps: u32,
    /// The smallest queue of the last six frames, once there are six.
    recent: Option<Duration>,
    /// The smallest raw queue of the same frames ([`Self::update_recent`]).
    recent_raw: Duration,
    slow_start_exit: Duration,
    /// Sum of the bytes in flight after each frame of the current round, and its mean over
    /// the last complete round.
    round_in_flight: f64,
    last_in_flight: f64,
    /// `(mean bytes in flight of the round before, delivery rate, standing queue, the same from
    /// raw samples)` of the last `2 * NOISE_ROUNDS` rounds: what was sent in one round is
    /// delivered in the next.
    history: VecDeque<(f64, f64, Duration, Duration)>,
    noise: Duration,
    /// Whether the last reading of the pipe (`learn_noise`) found it full.
    pipe_read_full: bool,
    /// Whether the flow has met another flow's standing queue lately, as its algorithm tells
    /// ([`Self::set_other_flow_near`]).
    other_flow_near: bool,
    /// When the last ACK frame that acknowledged data arrived, and the rate at which each of the
    /// last [`RECENT_FRAMES`] such frames' bytes arrived since the one before (bytes per second;
    /// infinite for frames that arrived together), for [`Self::own_burst_step`].
    last_frame_at: Option<Instant>,
    frame_rates: VecDeque<f64>,
    noise_read: NoiseRead,
    /// The queue read before a frame's newest packet, sixteen times a minimum RTT, for
    /// [`Self::above_usual_queue`]; kept only where the classifier reads the losses' placement
    /// ([`LossRead::Placement`]).
    queue_readings: Option<QueueReadings>,
    /// Where the recent losses fell among those readings.
    placement: LossPlacement,
}

impl Default for PathModel {
    fn default() -> Self {
        Self {
            frames: VecDeque::with_capacity(RECENT_FRAMES),
            round_start: None,
            round_queue_sum: 0.0,
            full_pipe_rate: 0.0,
            rounds_without_growth: 0,
            round_raw_queue_sum: 0.0,
            standing_raw: Duration::ZERO,
            round_frames: 0,
            round_acked: 0,
            rounds: 0,
            standing: None,
            rates: VecDeque::with_capacity(PEAK_ROUNDS),
            peak_rate: 0.0,
            min_rtt: Duration::ZERO,
            mss: 1200,
            acked_per_frame: QUINN_ACKED_PER_FRAME,
            successive_difference: 0.0,
            queue_drift: 0.0,
            trendless_difference: 0.0,
            raw_successive_difference: 0.0,
            round_spread: RoundSpread::default(),
            steps: 0,
            raw_steps: 0,
            recent: None,
            recent_raw: Duration::ZERO,
            slow_start_exit: MIN_TARGET,
            round_in_flight: 0.0,
            last_in_flight: 0.0,
            history: VecDeque::with_capacity(2 * NOISE_ROUNDS),
            noise: Duration::ZERO,
            pipe_read_full: false,
            other_flow_near: false,
            last_frame_at: None,
            frame_rates: VecDeque::with_capacity(RECENT_FRAMES),
            noise_read: NoiseRead::default(),
            queue_readings: None,
            placement: LossPlacement::default(),
        }
    }
}

impl PathModel {
    /// Reads delay noise by `noise_read`'s rule from now on.
    pub fn set_noise_read(&mut self, noise_read: NoiseRead) {
        self.noise_read = noise_read;
    }

    /// Round trips completed so far.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// The smallest queue of the last few ACK frames: in slow start the queue builds within a
    /// round, and a round later the window would have doubled into it.
    pub fn recent_queue(&self) -> Option<Duration> {
        self.recent
    }

    /// Works out [`Self::recent_queue`] once per frame, and the smallest raw queue of the same
    /// frames (RTT sample less the minimum RTT, the claimed ACK Delay left in): the least raw
    /// sample, since taking out the minimum RTT keeps their order.
    fn update_recent(&mut self) {
        let newest = self.frames.iter().rev().take(2 * NEIGHBOURS);
        let (queue, raw) = newest.fold((Duration::MAX, Duration::MAX), |(queue, raw), frame| {
            (queue.min(frame.2), raw.min(frame.1))
        });
        let enough = self.frames.len() >= 2 * NEIGHBOURS;
        self.recent = enough.then_some(queue);
        self.recent_raw = raw.saturating_sub(self.min_rtt);
    }

    /// The standing queue of the last complete round.
    pub fn standing_queue(&self) -> Option<Duration> {
        self.standing
    }

    /// The largest delivery rate of the last hundred rounds, bytes per second.
    pub fn peak_rate(&self) -> f64 {
        self.peak_rate
    }

    /// The largest delivery rate of the last `rounds` rounds, bytes per second (zero before
    /// one): BBR's `BtlBw` filter (draft-cardwell-iccrg-bbr-congestion-control section 4.5.2).
    pub fn recent_peak_rate(&self, rounds: usize) -> f64 {
        self.rates
            .iter()
            .rev()
            .take(rounds)
            .copied()
            .fold(0.0, f64::max)
    }

    /// Whether the delivery rate has stopped growing: three rounds without a quarter's growth
    /// over its best (BBR's full-bandwidth check, draft-cardwell-iccrg-bbr-congestion-control
    /// section 4.3.1.2). Read in slow start, where the window doubles each round.
    pub fn pipe_filled(&self) -> bool {
        self.rounds_without_growth >= FULL_PIPE_ROUNDS
    }

    /// Tells the model whether the flow has met another flow's standing queue lately: a fall of
    /// the data in flight then teaches the [`Self::noise_floor`] nothing, since a window that
    /// shrinks while another flow takes what it frees sees its rate fall as over noise.
    pub fn set_other_flow_near(&mut self, near: bool) {
        self.other_flow_near = near;
    }

    /// Starts [`Self::pipe_filled`]'s check afresh, for a slow start that begins again from a
    /// small window (after persistent congestion): the best rate of the one before would read
    /// as a full pipe from its first round.
    pub fn restart_full_pipe_check(&mut self) {
        self.full_pipe_rate = 0.0;
        self.rounds_without_growth = 0;
    }

    fn check_full_pipe(&mut self, rate: f64) {
        if rate >= FULL_PIPE_GROWTH * self.full_pipe_rate {
            self.full_pipe_rate = rate;
            self.rounds_without_growth = 0;
        } else {
            self.rounds_without_growth += 1;
        }
    }

    /// The delivery rate of the last complete round, bytes per second (zero before one).
    pub fn round_rate(&self) -> f64 {
        self.rates.back().copied().unwrap_or(0.0)
    }

    /// The queue at which slow start ends: twice the target, but no more than HyStart's delay
    /// threshold (RFC 9406 section 4.3: `clamp(min RTT / 8, 4 ms, 16 ms)`, halved here, for a
    /// queue rather than an RTT rise), since early in slow start the peak rate, and so the packet
    /// time behind the target, is only the rate of the first rounds.
    pub fn slow_start_exit(&self) -> Duration {
        self.slow_start_exit
    }

    /// Works out [`Self::slow_start_exit`], once a round (every frame in the first round, while
    /// the minimum RTT settles): slow start reads it on every frame.
    fn update_slow_start_exit(&mut self) {
        let hystart = (self.min_rtt / 16).clamp(MIN_GUARD / 2, Duration::from_millis(8));
        self.slow_start_exit = self.target().saturating_mul(2).min(hystart.max(MIN_TARGET));
    }

    /// The minimum RTT.
    pub fn min_rtt(&self) -> Duration {
        self.min_rtt
    }

    /// The queue the flow aims for when it has the bottleneck to itself: `TARGET_PACKETS`
    /// packet times at the highest rate it has seen (at least a millisecond, at most a tenth of
    /// the minimum RTT, beyond which the queue would cost a short-RTT flow its manners), plus the
    /// burst of a receiver that acknowledges more than two packets at a time ([`Self::burst`]).
    pub fn target(&self) -> Duration {
        self.base_target().saturating_add(self.burst())
    }

    /// Twice the mean absolute difference between successive frames' queues: a queue moves by a
    /// packet time or so from one frame to the next, per-packet delay variation (radio link
    /// retries, `jitter` in a scenario) by milliseconds, whatever the window. Noise to the target
    /// and the guard. At most a quarter of the minimum RTT.
    pub fn jitter(&self) -> Duration {
        self.spread(self.successive_difference)
    }

    /// Twice a mean absolute difference between successive frames, at most a quarter of the
    /// minimum RTT.
    fn spread(&self, successive_difference: f64) -> Duration {
        seconds(2.0 * successive_difference).min(self.min_rtt / 4)
    }

    fn base_target(&self) -> Duration {
        if self.peak_rate <= 0.0 {
            return MIN_TARGET;
        }
        let packets = seconds(TARGET_PACKETS * self.packet_time());
        packets.min(self.min_rtt / 10).max(MIN_TARGET)
    }

    /// Seconds one packet takes at the highest rate seen.
    fn packet_time(&self) -> f64 {
        self.mss as f64 / self.peak_rate.max(1.0)
    }

    /// The queue a sender's burst builds when a receiver acknowledges `n > 2` packets per frame
    /// (s2n-quic and Chromium acknowledge every tenth): each ACK releases `n` packets at once,
    /// and the newest of them, the one the next frame samples, waits behind the others. Every
    /// sample carries it, so it is noise to the target and the guard, not a queue to shed. At
    /// most a quarter of the minimum RTT.
    pub fn burst(&self) -> Duration {
        let extra = (self.acked_per_frame - QUINN_ACKED_PER_FRAME).max(0.0);
        seconds(extra * self.packet_time()).min(self.min_rtt / 4)
    }

    /// The queue above which a loss is congestion: three base targets (the flow keeps one and sheds
    /// above two), but no more than the larger of one and a half targets (`GUARD_TARGETS`) and
    /// 4 ms (`AQM_GUARD`), plus the larger of the jitter beyond a target and twice the receiver's
    /// burst (the target holds about half of the burst in the standing queue, a lost packet's
    /// neighbours may meet all of it), plus the noise floor, at least 3 ms. CoDel (5 ms) and PIE
    /// (15 ms) drop only above their targets, and a drop-tail queue only when full.
    ///
    /// The jitter beyond a target, not all of it: the flow keeps about one target queued, and the
    /// guard's base stands half a target to two targets above that, room the delay's spread moves
    /// within before it can lift a random loss's reading past the guard. So the jitter adds to the
    /// guard exactly where the frames read as noisy, by what it exceeds the target (where only the
    /// last round's mean reads noisy, the noise floor still adds). Adding all of it counted a quiet
    /// path's spread twice, once in the base's room and once on top: behind CoDel at a few Mbit/s
    /// beside another flow, the two flows' packets interleave, the queue moves by a packet time or
    /// two between frames, and the whole spread lifted the guard further over CoDel's target, where
    /// CoDel's drops read as random. On that path the base was two targets until it became one and
    /// a half: two stood at 6.4 ms, above CoDel's 5 ms (RESULTS.md, "Real time behind CoDel").
    ///
    /// Without the bound, three targets were 6.9 ms on a 20 Mbit/s path, and 13 of the 17
    /// CoDel drops `discern` called random beside CUBIC (6 seeds) had met 5 to 6.8 ms.
    ///
    /// The larger, not the sum: behind a receiver that acknowledges every tenth packet, the
    /// bursts are most of what the jitter measures. Counting both put the guard at 34 to 41 ms on
    /// a 10 Mbit/s path whose full queue was 41 ms, and the flow called 8 to 11 % of that queue's
    /// overflow drops random; with the larger, 4 %.
    pub fn guard(&self) -> Duration {
        let base = self.base_target();
        base.saturating_mul(3)
            .min(base.mul_f64(GUARD_TARGETS).max(AQM_GUARD))
            .saturating_add(
                self.burst()
                    .saturating_mul(2)
                    .max(self.jitter().saturating_sub(self.target())),
            )
            .saturating_add(self.noise_floor())
            .max(MIN_GUARD)
    }

    /// The path's delay variation exceeds the target: the queue the flow reads cannot tell its
    /// own queue from delay noise. Frame to frame, or on average over the frames of the last
    /// round (`noisy_over_round`): per-packet jitter that keeps packets in order clumps
    /// them behind each late one, and at a high rate a clump's frames step by a packet time or
    /// less, so the frame-to-frame spread dips below the target between one late packet and the
    /// next while the delay still wanders by the jitter. Read frame by frame, the path turned
    /// from noisy to quiet and back within a round, and each quiet spell read the jitter as a
    /// queue, to be shed, and every loss in it as congestion.
    pub fn is_noisy(&self) -> bool {
        self.jitter_beyond_target() || self.noisy_over_round(self.round_spread.last)
    }

    /// Whether the spread of the latest frames exceeds the target, or they arrived clumped where
    /// clumps count ([`Self::reads_clumps`]).
    fn jitter_beyond_target(&self) -> bool {
        self.jitter() > self.target() || self.reads_clumps()
    }

    /// Whether frames arriving clumped count as noise ([`NoiseRead::Clumps`]) and the recent
    /// ones did.
    fn reads_clumps(&self) -> bool {
        self.noise_read == NoiseRead::Clumps && self.own_burst_step() == Duration::ZERO
    }

    /// Whether a round's mean spread exceeds the target and what the flow's own bursts make
    /// ([`Self::beyond_own_bursts`], read from the latest frames): on a slow link the flow's own
    /// frames step by a packet time, more than the target, and the mean would keep the path noisy
    /// for a round after its frames read quiet, where only the flow's own sawtooth moved the
    /// delay.
    fn noisy_over_round(&self, mean: Duration) -> bool {
        mean > self.target() && self.beyond_own_bursts(mean)
    }

    /// Whether the delay varies from frame to frame, beyond its trend, by more than slow start's
    /// exit threshold ([`Self::slow_start_exit`]) and more than the flow's own bursts can make it
    /// ([`Self::own_burst_step`]): what slow start asks before it reads a queue of the exit
    /// threshold as the pipe's. The spread is of each step's distance from the trend
    /// (`trendless_difference`): a queue that a slow start builds rises by a packet time or two
    /// every frame, which on a slow link exceeds the threshold, but every step is the trend;
    /// delay noise steps both ways, and noise that rides on a trend keeps its spread.
    ///
    /// The comparison is with the exit threshold, not the target: early in slow start the target
    /// is a tenth of the minimum RTT (the first rounds' rate gives long packet times), while the
    /// exit threshold is a few milliseconds, and jitter between the two ended slow start within
    /// a round or two, far below the pipe.
    pub fn is_noisy_beyond_trend(&self) -> bool {
        // The exit threshold first: the own-burst bound selects among the recent frames, and
        // slow start asks on every frame.
        let spread = self.spread(self.trendless_difference);
        spread > self.slow_start_exit && self.beyond_own_bursts(spread)
    }

    /// Twice the mean distance of a frame's step from the queue's trend: the delay noise that is
    /// not a queue building or draining ([`Self::is_noisy_beyond_trend`]), whoever's bursts make
    /// it.
    pub fn trendless_jitter(&self) -> Duration {
        self.spread(self.trendless_difference)
    }

    /// Whether a spread exceeds what the flow's own bursts make ([`Self::own_burst_step`]).
    fn beyond_own_bursts(&self, spread: Duration) -> bool {
        spread > self.own_burst_step().saturating_mul(OWN_BURST_STEPS)
    }

    /// The delay's spread from frame to frame beyond its trend (twice the mean distance of a
    /// step from the trend), where it is more than the flow's own bursts make
    /// ([`Self::own_burst_step`]); zero where it is not. Delay noise of this size rides on every
    /// sample slow start reads, so its exit reads the queue past it: order-keeping jitter grows
    /// with the rate (a late packet holds back those behind it), and from the sparse first
    /// round to a doubled window it offsets the whole delay by about its spread, which reads as
    /// a queue of the exit threshold long before the pipe is full.
    pub fn noise_beyond_trend(&self) -> Duration {
        let spread = self.spread(self.trendless_difference);
        if self.beyond_own_bursts(spread) {
            spread
        } else {
            Duration::ZERO
        }
    }

    /// The step a frame's worth of the flow's own packets adds to the queue when they arrive at
    /// the bottleneck back to back: the packets one frame acknowledges, at the rate the recent
    /// frames' bytes arrived at in the fastest eighth of them (`FAST_FRAMES_SHARE`; the
    /// bottleneck's rate, once a burst has queued there). Where an eighth or more of the frames
    /// arrived together, clumped by per-packet jitter that keeps order (a late packet holds back
    /// those behind it) or by a link that delivers in bursts (a cellular trace's delivery
    /// opportunities), there is no such step: the spread they show is not the flow's own bursts.
    /// `Duration::MAX` (no bound: nothing reads as noise) before a frame has been timed.
    pub fn own_burst_step(&self) -> Duration {
        match self.fast_frame_rate() {
            None => Duration::MAX,
            Some(fast) if fast.is_infinite() => Duration::ZERO,
            Some(fast) => seconds(self.acked_per_frame * self.mss as f64 / fast),
        }
    }

    /// The rate, in bytes a second, at which the fastest eighth of the recent frames' bytes
    /// arrived (`FAST_FRAMES_SHARE`): the bottleneck's rate, once a burst has queued there.
    /// Infinite where that many frames arrived together; None before a frame has been timed.
    fn fast_frame_rate(&self) -> Option<f64> {
        let mut buffer = [0.0; RECENT_FRAMES];
        let rates = &mut buffer[..self.frame_rates.len()];
        if rates.is_empty() {
            return None;
        }
        for (slot, &rate) in rates.iter_mut().zip(&self.frame_rates) {
            *slot = rate;
        }
        let eighth = rates.len() / FAST_FRAMES_SHARE;
        let (_, &mut fast, _) = rates.select_nth_unstable_by(eighth, |a, b| b.total_cmp(a));
        Some(fast)
    }

    /// The pipe, in bytes, that the bottleneck's rate fills in a minimum RTT, the rate read as
    /// `fast_frame_rate`: a burst the pacer releases back to back leaves the bottleneck
    /// one packet time apart, and its ACK frames come back as far apart (the packet-pair
    /// principle: Keshav, "A control-theoretic approach to flow control", SIGCOMM 1991). None
    /// until `PIPE_FRAMES` frames have been timed, or where the fastest frames arrived
    /// together. In the first rounds of slow start a round's few frames are parted by the
    /// rounds' idle gaps and by delay noise, which read a fraction of the bottleneck's rate.
    /// Frames clumped by jitter or by a bursty link read above it, and ACK compression
    /// (decimation, a cellular link's delivery opportunities) does too: the estimate errs high
    /// there, never low, once enough frames have been seen.
    pub fn burst_pipe(&self) -> Option<f64> {
        if self.frame_rates.len() < PIPE_FRAMES {
            return None;
        }
        let rate = self.fast_frame_rate()?;
        rate.is_finite()
            .then(|| rate * self.min_rtt().as_secs_f64())
    }

    /// Whether the raw samples vary as much as [`Self::is_noisy`] asks of the corrected ones:
    /// a receiver that claims the queue as ACK Delay, capped frame by frame, makes the
    /// corrected samples jump where the raw ones, at a full queue, stand still.
    fn raw_is_noisy(&self) -> bool {
        self.raw_jitter_beyond_target() || self.noisy_over_round(self.round_spread.last_raw)
    }

    /// [`Self::jitter_beyond_target`] of the raw samples.
    fn raw_jitter_beyond_target(&self) -> bool {
        self.spread(self.raw_successive_difference) > self.target() || self.reads_clumps()
    }

    /// Whether the path has shown delay noise by its effect, not only by its spread: a noise
    /// floor learnt ([`Self::noise_floor`]) from a rise of the data in flight that the delivery
    /// rate followed. Another flow's bursts spread the delay as jitter does, but a rise into a
    /// link they share raises the queue with it.
    pub fn shows_noise(&self) -> bool {
        self.noise_floor() > Duration::ZERO && self.raw_is_noisy()
    }

    /// Whether the last reading of the pipe ([`Self::noise_floor`]'s) found it full: the data in
    /// flight moved and the delivery rate did not follow, or the queue moved with it. False
    /// before the first reading.
    pub fn last_pipe_read_full(&self) -> bool {
        self.pipe_read_full
    }

    /// The standing queue that is delay noise rather than a queue: the standing queue of rounds
    /// after which the data in flight rose and the delivery rate rose with it, so the pipe was
    /// not full (`learn_noise`). Zero unless the path [`Self::is_noisy`].
    pub fn noise_floor(&self) -> Duration {
        if self.is_noisy() {
            self.noise
        } else {
            Duration::ZERO
        }
    }

    /// Compares the last `NOISE_ROUNDS` rounds with the ones before them, where the data in
    /// flight moved by a tenth or more. Rising: a delivery rate that rose by half as much or more
    /// shows the pipe was not full before, so the standing queue then was noise (order-keeping
    /// per-packet jitter grows with the rate, so it reads as a queue that grows with the window).
    /// Falling (where [`Self::reads_falls`]): a rate that fell by three quarters as much or more
    /// shows the same of the rounds after. A rate that moved by less than a quarter as much shows
    /// the pipe full: the floor loses a quarter, so that a queue once taken for noise is shed.
    /// Each reading starts a fresh comparison ([`read_pipe`]).
    fn learn_noise(&mut self) {
        // Only while the frames show the noise now: a round's mean spread keeps a floor learnt
        // in force (`is_noisy`) but learns none.
        let frames_noisy = self.jitter_beyond_target() && self.raw_jitter_beyond_target();
        if self.history.len() < 2 * NOISE_ROUNDS || !frames_noisy {
            return;
        }
        let before = self.history_mean(0..NOISE_ROUNDS);
        let after = self.history_mean(NOISE_ROUNDS..2 * NOISE_ROUNDS);
        if before.in_flight <= 0.0 || before.rate <= 0.0 {
            return;
        }
        let moved = after.in_flight / before.in_flight - 1.0;
        let reading = if moved >= NOISE_GROWTH {
            read_pipe(&before, &after, RISE_FOLLOWED)
        } else if moved <= -NOISE_GROWTH && self.reads_falls() {
            read_pipe(&after, &before, FALL_FOLLOWED)
        } else {
            return;
        };
        match reading {
            PipeReading::NotFull(noise) => self.noise = noise.min(self.min_rtt / 2),
            PipeReading::Full => self.noise = self.noise.mul_f64(NOISE_KEPT),
            PipeReading::Unclear => return,
        }
        self.pipe_read_full = reading == PipeReading::Full;
        self.history.clear();
    }

    /// Whether a fall of the data in flight is read for noise ([`Self::learn_noise`]): no other
    /// flow has kept a queue standing lately ([`Self::set_other_flow_near`]), and the delay is
    /// noisy beyond its trend ([`Self::is_noisy_beyond_trend`]). A flow whose window shrinks
    /// while another flow takes what it frees sees its rate fall and the queue hold, as noise
    /// would show; and the queue a buffer-filler keeps moves with a trend (its sawtooth), where
    /// jitter steps both ways.
    fn reads_falls(&self) -> bool {
        !self.other_flow_near && self.is_noisy_beyond_trend()
    }

    /// Forgets the rounds that the reading of the noise floor ([`Self::noise_floor`]) compares,
    /// so that its next reading compares rounds that come after now. Its owner calls this where a
    /// buffer overflowed: the rate and the data in flight of the rounds around an overflow read no
    /// pipe. Another flow that backs off from the same overflow frees the rate this flow then
    /// gains, while the queue stands, and the comparison would take that flow's queue for noise.
    pub fn forget_rounds(&mut self) {
        self.history.clear();
    }

    /// The means over `rounds` of the history's rounds.
    fn history_mean(&self, rounds: std::ops::Range<usize>) -> RoundsMean {
        let n = rounds.len() as f64;
        self.history.range(rounds).fold(
            RoundsMean::default(),
            |mean, &(in_flight, rate, queue, raw)| RoundsMean {
                in_flight: mean.in_flight + in_flight / n,
                rate: mean.rate + rate / n,
                queue: mean.queue + queue.as_secs_f64() / n,
                raw_queue: mean.raw_queue + raw.as_secs_f64() / n,
            },
        )
    }

    fn on_ack(&mut self, ack: &Ack) {
        self.mss = self.mss.max(ack.bytes);
        match self.round_start {
            Some(start) if ack.sent <= start => {}
            Some(start) => {
                let span = ack.now.saturating_duration_since(start).as_secs_f64();
                if span > 0.0 {
                    if self.rates.len() == PEAK_ROUNDS {
                        self.rates.pop_front();
                    }
                    let rate = self.round_acked as f64 / span;
                    self.rates.push_back(rate);
                    self.check_full_pipe(rate);
                    self.peak_rate = self.rates.iter().copied().fold(0.0, f64::max);
                }
                if self.round_frames > 0 {
                    let frames = f64::from(self.round_frames);
                    self.standing = Some(seconds(self.round_queue_sum / frames));
                    self.standing_raw = seconds(self.round_raw_queue_sum / frames);
                }
                self.round_spread.end_round();
                self.record_round(span);
                self.rounds += 1;
                self.update_slow_start_exit();
                self.begin_round(ack.now);
            }
            None => self.begin_round(ack.now),
        }
        self.round_acked = self.round_acked.saturating_add(ack.bytes);
    }

    fn begin_round(&mut self, now: Instant) {
        self.round_start = Some(now);
        self.round_queue_sum = 0.0;
        self.round_raw_queue_sum = 0.0;
        self.round_frames = 0;
        self.round_acked = 0;
        self.round_in_flight = 0.0;
    }

    /// Files the round that ended, `span` seconds long, for [`Self::learn_noise`].
    fn record_round(&mut self, span: f64) {
        let in_flight = self.round_in_flight / f64::from(self.round_frames.max(1));
        if let (true, Some(standing)) = (span > 0.0 && self.round_frames > 0, self.standing) {
            if self.history.len() == 2 * NOISE_ROUNDS {
                self.history.pop_front();
            }
            let rate = self.round_acked as f64 / span;
            self.history
                .push_back((self.last_in_flight, rate, standing, self.standing_raw));
            self.learn_noise();
        }
        self.last_in_flight = in_flight;
    }

    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.min_rtt = batch.rtt.min;
        self.acked_per_frame +=
            (batch.acked_packets as f64 - self.acked_per_frame) * ACKED_PER_FRAME_GAIN;
        // The frame before this one has had its ACK delay recovered: a receiver's timer (a lone
        // packet, or a receiver the sender asked to acknowledge every tenth packet, where the
        // sender passed that threshold on) no longer counts as queue, within what was credited.
        if let (Some(resolved), Some(last)) = (batch.resolved, self.frames.back_mut()) {
            if last.1 == resolved.latest {
                last.2 = resolved.queueing();
            }
        }
        let queueing = batch.rtt.queueing();
        // A running mean over the first steps, an exponential one after: the average starts from
        // zero, and a sixteenth of each of the first few steps would read the jitter low through
        // most of the first round. Past those steps the weight is the exponential one's, taken
        // without a division per frame.
        let gain = |steps: u32| {
            let steps = f64::from(steps) + 1.0;
            if steps >= 1.0 / ACKED_PER_FRAME_GAIN {
                ACKED_PER_FRAME_GAIN
            } else {
                1.0 / steps
            }
        };
        let step_gain = gain(self.steps);
        let raw_gain = gain(self.raw_steps);
        // The step into the frame before, now that its ACK Delay is known: read as it arrived, a
        // frame the receiver's timer held (a lone packet) steps up by the whole timer, and the
        // next one back down, which twice a mean of steps would read as milliseconds of jitter.
        let frames = self.frames.len();
        if frames >= 2 {
            let (before, last) = (self.frames[frames - 2].2, self.frames[frames - 1].2);
            let step = in_seconds(last) - in_seconds(before);
            ewma(&mut self.successive_difference, step.abs(), step_gain);
            ewma(&mut self.queue_drift, step, step_gain);
            ewma(
                &mut self.trendless_difference,
                (step - self.queue_drift).abs(),
                step_gain,
            );
            self.steps = self.steps.saturating_add(1);
        }
        if let Some(&(_, previous_raw, _)) = self.frames.back() {
            let raw_step = batch.rtt.latest.abs_diff(previous_raw);
            ewma(
                &mut self.raw_successive_difference,
                in_seconds(raw_step),
                raw_gain,
            );
            self.raw_steps = self.raw_steps.saturating_add(1);
        }
        self.round_spread
            .add(self.jitter(), self.spread(self.raw_successive_difference));
        if self.frames.len() == RECENT_FRAMES {
            self.frames.pop_front();
        }
        self.note_frame_rate(batch);
        let sent = batch.now.checked_sub(batch.rtt.latest).unwrap_or(batch.now);
        self.frames.push_back((sent, batch.rtt.latest, queueing));
        self.read_queue_before(batch.now, sent);
        self.update_recent();
        if self.rounds == 0 {
            self.update_slow_start_exit();
        }
        if let Some(recent) = self.recent {
            self.round_queue_sum += in_seconds(recent);
            self.round_raw_queue_sum += in_seconds(self.recent_raw);
            self.round_in_flight += batch.in_flight as f64;
            self.round_frames += 1;
        }
    }

    /// Files the rate at which `batch`'s bytes arrived since the frame before (infinite at the
    /// same instant). A frame that acknowledges nothing new times nothing.
    fn note_frame_rate(&mut self, batch: &AckBatch) {
        if batch.acked_bytes == 0 {
            return;
        }
        if let Some(at) = self.last_frame_at {
            let gap = in_seconds(batch.now.saturating_duration_since(at));
            if self.frame_rates.len() == RECENT_FRAMES {
                self.frame_rates.pop_front();
            }
            self.frame_rates.push_back(batch.acked_bytes as f64 / gap);
        }
        self.last_frame_at = Some(batch.now);
    }

    /// The ACK frames on each side of a send time that [`Self::queue_met_at`] reads:
    /// [`NEIGHBOURS`] of a quinn receiver's, which cover about six packets. A receiver that
    /// acknowledges many more packets per frame (ACK decimation: s2n-quic and Chromium about ten)
    /// covers as many packets in fewer frames, at least one; three of its frames would reach
    /// back to a queue far shorter than the one a loss at a full queue met.
    fn neighbours(&self) -> usize {
        if self.acked_per_frame < 2.0 * QUINN_ACKED_PER_FRAME {
            return NEIGHBOURS;
        }
        let packets = NEIGHBOURS as f64 * QUINN_ACKED_PER_FRAME;
        ((packets / self.acked_per_frame).ceil() as usize).max(1)
    }

    /// The queue a packet sent at `sent` met: the smallest of the queues met by the newest
    /// packets of the frames sent nearest before it and after it (three each with a quinn
    /// receiver, fewer with one that decimates ACKs: `neighbours`). Those were
    /// acknowledged by the time quinn declares the loss; the smallest passes over jitter and ACK
    /// delay, and a full or AQM-controlled queue stands high for all of them. On a noisy path,
    /// also every frame sent up to a quarter of the minimum RTT before it: jitter that keeps
    /// order holds back every packet behind a late one, a rise that comes at once and drains
    /// packet by packet, where a queue that drops packets has stood for longer.
    pub fn queue_met_at(&self, sent: Instant) -> Option<Duration> {
        let split = self.frames.partition_point(|&(at, _, _)| at <= sent);
        let after = self.frames.range(split..).take(self.neighbours());
        self.frames_before(split, sent)
            .chain(after)
            .map(|&(_, _, q)| q)
            .min()
    }

    /// The smallest queue met by the newest packets of the frames sent strictly before `sent`
    /// ([`Self::queue_met_at`] without the frames after): what a loss's placement is read from
    /// ([`Self::above_usual_queue`]). None until as many frames as it reads are known.
    pub fn queue_before(&self, sent: Instant) -> Option<Duration> {
        let split = self.frames.partition_point(|&(at, _, _)| at < sent);
        if split < self.neighbours() {
            return None;
        }
        self.frames_before(split, sent).map(|&(_, _, q)| q).min()
    }

    /// Files the queue met before the frame sent at `sent`, arriving at `now`, where a reading is
    /// due.
    fn read_queue_before(&mut self, now: Instant, sent: Instant) {
        let min_rtt = self.min_rtt;
        let due = self
            .queue_readings
            .as_mut()
            .is_some_and(|readings| readings.due(now, min_rtt));
        let Some(queue) = due.then(|| self.queue_before(sent)).flatten() else {
            return;
        };
        if let Some(readings) = self.queue_readings.as_mut() {
            readings.file(queue);
        }
    }

    /// The frames up to `split` (those sent before `sent`) that [`Self::queue_met_at`] reads,
    /// newest first.
    fn frames_before(
        &self,
        split: usize,
        sent: Instant,
    ) -> impl Iterator<Item = &(Instant, Duration, Duration)> {
        let reach = if self.is_noisy() {
            self.min_rtt / 4
        } else {
            Duration::ZERO
        };
        let neighbours = self.neighbours();
        self.frames
            .range(..split)
            .rev()
            .enumerate()
            .take_while(move |&(i, &(at, _, _))| {
                i < neighbours || sent.saturating_duration_since(at) <= reach
            })
            .map(|(_, frame)| frame)
    }

    /// Whether the recent losses followed the queue (see `loss_placement`); always false where
    /// the placement is not read ([`LossRead::Guard`]).
    pub fn losses_follow_queue(&self) -> bool {
        // No loss is placed without readings, so an empty placement never follows.
        self.placement.follows_queue()
    }

    /// Whether the queue met before a packet sent at `sent` ([`Self::queue_before`]) was above
    /// the median of the same reading over the recent frames (see `loss_placement`). None where
    /// either is not known yet.
    pub fn above_usual_queue(&self, sent: Instant) -> Option<bool> {
        let readings = self.queue_readings.as_ref()?;
        readings.above_median(self.queue_before(sent)?)
    }
}

/// `discern`'s classifier for a short queue: a loss is congestion when the packets around it met
/// a queue above [`PathModel::guard`], or when more than a fifth of the window was lost with no
/// queue at any of its losses and not in one run (a policer; `RUN_REVEALS`), or while such a
/// limit is remembered and the window is no smaller than its cut leaves, or when half the window
/// was lost; random otherwise.
///
/// The guard is quicly's (h2o/quicly issue 687: congestion once the RTT exceeds `min RTT + 5 ms`),
/// scaled for slow links: a flow that keeps its own queue at a couple of packets sees channel
/// losses well below it, while CoDel, PIE and a full drop-tail queue drop only above it. On an
/// ECN path, once a CE mark has been seen, marks carry the congestion signal and losses short of
/// half the window are random, as in [`super::QueueFull`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ShortQueue {
    path: PathModel,
    marks_ce: bool,
    last_cause: Option<LossCause>,
    last_queue_met: Duration,
    /// A rate limit found (a policer's); while it is remembered, every loss with the queue short
    /// from a window no smaller than the limit's cut leaves is the limit's: a policer drops what
    /// exceeds it ([`RateLimit::reached_by`]).
    rate_limit: Option<RateLimit>,
    rounds_seen: u64,
    /// The current loss window: how many ACKs revealed its losses, and the window they were lost
    /// from.
    loss_window: LossWindow,
}

impl ShortQueue {
    /// What the classifier knows of the path.
    pub fn path(&self) -> &PathModel {
        &self.path
    }

    /// The path model, for the algorithm to restart its full-pipe check.
    pub fn path_mut(&mut self) -> &mut PathModel {
        &mut self.path
    }

    /// The queue the latest lost packet met.
    pub fn last_queue_met(&self) -> Duration {
        self.last_queue_met
    }

    /// Whether the recent losses followed the queue (see `loss_placement`): most of them met
    /// more queue than the recent readings' median, as an AQM's or a full buffer's drops do
    /// and a channel's do not. Always false unless the classifier reads the losses' placement
    /// ([`LossRead::Placement`]).
    pub fn losses_follow_queue(&self) -> bool {
        self.path.losses_follow_queue()
    }

    /// Reads losses by `loss_read`'s rule from now on.
    pub fn set_loss_read(&mut self, loss_read: LossRead) {
        self.path.queue_readings = match loss_read {
            LossRead::Guard => None,
            LossRead::Placement => Some(QueueReadings::default()),
        };
    }

    /// Why the latest loss event was judged as it was.
    pub fn last_cause(&self) -> Option<LossCause> {
        self.last_cause
    }

    /// The window, in bytes, at which a rate limit (a policer) was last found, raised by the
    /// target's worth of bytes a round since.
    pub fn rate_limit(&self) -> Option<u64> {
        self.rate_limit
            .map(|limit| (limit.packets * self.path.mss as f64) as u64)
    }

    /// Whether the rate limit remembered was found from a slow start's overshoot.
    pub fn rate_limit_is_overshoot(&self) -> bool {
        self.rate_limit.is_some_and(|limit| limit.overshoot)
    }

    /// The target's worth of packets: how far a round may probe above a rate limit.
    fn target_packets(&self) -> f64 {
        let bytes = self.path.target().as_secs_f64() * self.path.peak_rate();
        (bytes / self.path.mss.max(1) as f64).max(1.0)
    }

    /// Whether this loss window's losses could be one run of consecutive packets
    /// ([`RUN_REVEALS`]) on a path whose delay reads the queue: there a buffer's overflow shows as
    /// a queue above the guard, so a run lost with the queue short is a channel's fade. Where the
    /// delay is noisy, a trace's outage fills a shallow buffer and drops a run too, with no
    /// queue the flow can read, so the share of the window lost stays the evidence.
    fn one_run_is_a_fade(&self) -> bool {
        self.loss_window.reveals <= RUN_REVEALS && !self.path.is_noisy()
    }

    fn judge(
        &self,
        event: &CongestionEvent,
        losses_in_window: u64,
        queue: Duration,
        guard: Duration,
        above_usual: bool,
    ) -> (LossCause, &'static str) {
        if half_window_lost(event, losses_in_window) {
            return (LossCause::Queue, "half the window lost");
        }
        if self.marks_ce {
            return (LossCause::Random, "ECN path: congestion shows as CE marks");
        }
        if queue >= guard {
            return (LossCause::Queue, "queue above the guard");
        }
        if above_usual && self.losses_follow_queue() {
            return (
                LossCause::Queue,
                "above the usual queue, where losses follow the queue",
            );
        }
        if !self.loss_window.met_queue
            && shows_rate_limit(event, losses_in_window, self.one_run_is_a_fade())
        {
            return (LossCause::Rate, "loss rate beyond a channel's");
        }
        match self.rate_limit {
            Some(limit) if limit.reached_by(event.window_packets) => {
                (LossCause::Rate, "a rate limit this path has shown")
            }
            Some(_) => (
                LossCause::Random,
                "below the window a rate limit's cut leaves",
            ),
            None => (LossCause::Random, "queue below the guard"),
        }
    }
}

impl Classifier for ShortQueue {
    fn on_ack(&mut self, ack: &Ack) {
        self.path.on_ack(ack);
    }

    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.path.on_ack_batch(batch);
        if self.path.rounds() != self.rounds_seen {
            self.rounds_seen = self.path.rounds();
            let step = self.target_packets();
            if let Some(limit) = &mut self.rate_limit {
                limit.packets += step;
                if self.rounds_seen.saturating_sub(limit.seen) > limit.memory() {
                    self.rate_limit = None;
                }
            }
        }
    }

    fn on_ecn_mark(&mut self, _event: &CongestionEvent) {
        self.marks_ce = true;
    }

    fn classify(&mut self, event: &CongestionEvent, losses_in_window: u64) -> Classification {
        let queue = self
            .path
            .queue_met_at(event.sent)
            .unwrap_or_else(|| event.rtt.queueing());
        let guard = self.path.guard();
        self.loss_window.record(event, losses_in_window);
        // A slow start's losses fall on a queue that rises from round to round, above the
        // readings of the round before whatever dropped them.
        let above_usual = if event.is_ecn() || event.sent_in_slow_start {
            None
        } else {
            self.path.above_usual_queue(event.sent)
        };
        if let Some(above) = above_usual {
            self.path.placement.record(above);
        }
        let (cause, reason) = self.judge(
            event,
            losses_in_window,
            queue,
            guard,
            above_usual == Some(true),
        );
        self.loss_window.met_queue |= cause == LossCause::Queue;
        // A loss called the limit's only because one is remembered renews it only if it came
        // with others: a policer that the window pokes above drops a few packets a window,
        // while a lone random loss renewing it would keep the limit forever on a lossy path.
        if cause == LossCause::Rate && losses_in_window >= RENEW_LOSSES {
            let passed = self
                .loss_window
                .window_packets
                .saturating_sub(losses_in_window);
            self.rate_limit = Some(RateLimit::found(
                passed,
                self.path.rounds(),
                event.sent_in_slow_start,
            ));
        }
        self.last_cause = Some(cause);
        self.last_queue_met = queue;
        let verdict = match cause {
            LossCause::Random => Verdict::Random,
            LossCause::Queue | LossCause::Rate => Verdict::Congestion,
        };
        Classification {
            verdict,
            threshold: Some(event.rtt.min.saturating_add(guard)),
            reason,
        }
    }
}

/// A rate limit found where more of a window was lost than a channel loses, with the queue
/// short. The flow answers its losses as an AIMD flow that takes Reno's share (RFC 9438 section
/// 4.3): a cut to [`RATE_BETA`] and [`reno_friendly_alpha`] a round, a policer being a limit
/// shared with whatever other flows pass it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RateLimit {
    /// The window, in packets, at which it was found (what passed of the window whose losses
    /// showed it).
    found: f64,
    /// The window the flow may grow to: `found`, raised by the target's worth of packets a
    /// round, so that the flow probes above it, as BBRv3 does above `inflight_hi`.
    packets: f64,
    /// The round it was last seen.
    seen: u64,
    /// Found from losses a slow start sent: a doubling window loses its excess at whatever the
    /// bottleneck is, and a buffer whose queue the jitter hides looks like a policer then. The
    /// limit still judges losses, since a policer the start overshot shows again as the window
    /// grows into it, but growth below it has no Reno-friendly cap, and it is remembered for
    /// [`RATE_LIMIT_ROUNDS`] past the round it was last seen, not for the regrowth besides.
    overshoot: bool,
}

impl RateLimit {
    fn found(passed: u64, round: u64, overshoot: bool) -> Self {
        let packets = passed.max(2) as f64;
        Self {
            found: packets,
            packets,
            seen: round,
            overshoot,
        }
    }

    /// Rounds it is remembered after `seen`: [`RATE_LIMIT_ROUNDS`] past the rounds the window,
    /// cut to [`RATE_BETA`] of it, takes to grow back, so that the next episode of the policer's
    /// drops finds it still remembered.
    fn memory(&self) -> u64 {
        if self.overshoot {
            return RATE_LIMIT_ROUNDS;
        }
        let regrowth = (1.0 - RATE_BETA) * self.found / reno_friendly_alpha(RATE_BETA);
        RATE_LIMIT_ROUNDS + regrowth.ceil() as u64
    }

    /// Whether a loss from a window of `window_packets` can be the limit's: the window is at
    /// least the one the limit's cut leaves. A policer drops only what exceeds its rate, so a
    /// loss from a window the cut took below it is a channel's; on a lossy path where a limit was
    /// read once (a slow start's overshoot), the flow then stops cutting after a cut or two.
    fn reached_by(&self, window_packets: u64) -> bool {
        window_packets as f64 >= RATE_BETA * self.found
    }
}

/// The loss window the latest loss event belongs to ([`crate::episode::LossEpisode`]'s): how
/// many loss events (ACKs) revealed its losses, the window, in packets, when the first did, and
/// whether any of them met a queue.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct LossWindow {
    reveals: u64,
    window_packets: u64,
    /// One of its losses was a queue's ([`LossCause::Queue`]): the window overflowed a buffer,
    /// and its later losses, sent as the loss response drained the queue, meet none. A policer
    /// keeps no queue at any of its drops, so such a window shows no rate limit however much
    /// of it was lost.
    met_queue: bool,
}

impl LossWindow {
    /// Counts `event` into the window, or opens a new one where it is the window's first
    /// (`losses_in_window` is its own).
    fn record(&mut self, event: &CongestionEvent, losses_in_window: u64) {
        if losses_in_window > event.lost_packets.max(1) {
            self.reveals = self.reveals.saturating_add(1);
        } else {
            *self = Self {
                reveals: 1,
                window_packets: event.window_packets,
                met_queue: false,
            };
        }
    }
}

/// Means of a few rounds of [`PathModel`]'s history: bytes in flight, delivery rate (bytes per
/// second), standing queue and the same from raw samples (seconds).
#[derive(Debug, Clone, Copy, Default)]
struct RoundsMean {
    in_flight: f64,
    rate: f64,
    queue: f64,
    raw_queue: f64,
}

/// What two sets of rounds with different data in flight show of the pipe.
#[derive(Debug, Clone, Copy, PartialEq)]
enum PipeReading {
    /// The pipe was not full with the lesser data in flight: the standing queue then was noise.
    NotFull(Duration),
    /// The pipe was full: the added data queued.
    Full,
    /// Neither.
    Unclear,
}

/// Reads the pipe from rounds with less data in flight (`fewer`) and rounds with more (`more`),
/// whichever came first. Where the rate moved by `followed` as much as the data in flight or
/// more, and the raw queue by less than half of what the added data would have queued behind a
/// full pipe, the pipe was not full with the lesser data; where the rate moved by less than a
/// quarter as much, or the queue by half of that or more, it was full. The queue is read from
/// the raw samples: a receiver that claims the queue as ACK Delay hides it from the corrected
/// ones, and a flow taking another's share would read as one filling an empty pipe.
fn read_pipe(fewer: &RoundsMean, more: &RoundsMean, followed: f64) -> PipeReading {
    let grew = more.in_flight / fewer.in_flight - 1.0;
    let rate_grew = more.rate / fewer.rate - 1.0;
    let full_rise = (more.in_flight - fewer.in_flight) / fewer.rate;
    let rose = more.raw_queue - fewer.raw_queue;
    if rate_grew >= grew * followed && rose < full_rise / 2.0 {
        PipeReading::NotFull(seconds(fewer.queue))
    } else if rate_grew < grew / 4.0 || rose >= full_rise / 2.0 {
        PipeReading::Full
    } else {
        PipeReading::Unclear
    }
}

/// The spreads ([`PathModel::jitter`], and the same of the raw samples) of a round's frames, and
/// their means over the last complete round: delay noise on the timescale of a round, which a
/// frame's spread, an average over the last sixteen frames, can miss.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct RoundSpread {
    /// Sums over the frames of the current round, seconds.
    sum: f64,
    raw_sum: f64,
    frames: u32,
    last: Duration,
    last_raw: Duration,
}

impl RoundSpread {
    fn add(&mut self, spread: Duration, raw: Duration) {
        self.sum += in_seconds(spread);
        self.raw_sum += in_seconds(raw);
        self.frames += 1;
    }

    /// Files the round's means; a round without frames leaves the last ones.
    fn end_round(&mut self) {
        if self.frames > 0 {
            let n = f64::from(self.frames);
            self.last = seconds(self.sum / n);
            self.last_raw = seconds(self.raw_sum / n);
        }
        self.sum = 0.0;
        self.raw_sum = 0.0;
        self.frames = 0;
    }
}

/// More of the window lost than a channel loses, and not a channel's fade: a rate limit's drops.
fn shows_rate_limit(event: &CongestionEvent, losses_in_window: u64, fade: bool) -> bool {
    losses_in_window > (event.window_packets / RATE_LOSS_SHARE).max(MIN_RATE_LOSSES) && !fade
}

/// Moves the running mean `mean` (seconds) `gain` of the way to `sample`, flushing what decays
/// below [`NEGLIGIBLE_SECONDS`] to zero. On a quiet path the queue steps by exactly nothing frame
/// after frame, and the means of its steps decay by a constant factor each frame: after some ten
/// thousand frames they would sink into subnormal floats, whose arithmetic takes the processor's
/// slow path (a microcode assist per operation), at several times the cost of the rest of the
/// ACK. Nothing reads them finer than `Duration`'s nanoseconds.
fn ewma(mean: &mut f64, sample: f64, gain: f64) {
    *mean += (sample - *mean) * gain;
    if mean.abs() < NEGLIGIBLE_SECONDS {
        *mean = 0.0;
    }
}

/// A femtosecond: a millionth of the nanosecond a `Duration` resolves.
const NEGLIGIBLE_SECONDS: f64 = 1e-15;

/// `secs` seconds, saturating at the ends of `Duration`'s range (and 0 for NaN).
fn seconds(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs.max(0.0)).unwrap_or(Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Ack, RttSample};

    const RTT: Duration = Duration::from_millis(100);

    /// A path model fed 64 frames of two packets, whose queue is `queue_ms(i)` ms at frame `i`,
    /// arriving `arrival_ms(i)` ms after the first.
    fn fed(queue_ms: impl Fn(u32) -> f64, arrival_ms: impl Fn(u32) -> u64) -> PathModel {
        fed_frames(64, queue_ms, arrival_ms)
    }

    /// [`fed`], with `frames` frames.
    fn fed_frames(
        frames: u32,
        queue_ms: impl Fn(u32) -> f64,
        arrival_ms: impl Fn(u32) -> u64,
    ) -> PathModel {
        let mut path = PathModel::default();
        let epoch = Instant::now();
        for i in 0..frames {
            let latest = RTT + Duration::from_secs_f64(queue_ms(i) / 1000.0);
            let now = epoch + RTT * 2 + Duration::from_millis(arrival_ms(i));
            let rtt = RttSample::flat(RTT).with_latest(latest);
            path.on_ack_batch(&AckBatch::new(now, rtt, 2400, 2, 0, false, None));
        }
        path
    }

    /// Frames in bursts of four a millisecond apart (a burst leaving the bottleneck), the bursts
    /// 10 ms apart (the pacer's gaps).
    fn in_bursts(i: u32) -> u64 {
        u64::from(i / 4) * 13 + u64::from(i % 4)
    }

    #[test]
    fn the_pipe_is_the_fastest_frames_rate_over_a_minimum_rtt_once_enough_frames_are_timed() {
        let path = fed(|_| 0.0, in_bursts);
        // 2400 bytes a millisecond over 100 ms: the idle gaps between bursts do not lower it.
        let pipe = path.burst_pipe().expect("64 frames timed");
        assert!((pipe - 240_000.0).abs() < 1.0, "{pipe}");
        assert_eq!(
            fed_frames(PIPE_FRAMES as u32, |_| 0.0, in_bursts).burst_pipe(),
            None
        );
        assert!(fed_frames(PIPE_FRAMES as u32 + 1, |_| 0.0, in_bursts)
            .burst_pipe()
            .is_some());
        // Frames that arrive together (clumped by jitter) show no rate to read.
        assert_eq!(fed(|_| 0.0, |i| u64::from(i / 16)).burst_pipe(), None);
    }

    /// A queue that climbs by 180 us a frame, from empty to 2.9 ms over a cycle of 17 frames a
    /// millisecond apart, below the guard throughout; each cycle from the eighth on loses a
    /// packet, sent just after the frame at `loss_phase(cycle)` of the cycle. The verdicts, in
    /// order.
    fn verdicts_on_a_sawtooth(loss_phase: impl Fn(u32) -> u32) -> Vec<Verdict> {
        const CYCLE: u32 = 17;
        let mut classifier = ShortQueue::default();
        classifier.set_loss_read(LossRead::Placement);
        let epoch = Instant::now();
        let queue_at = |phase: u32| Duration::from_micros(180 * u64::from(phase));
        let arrival = |i: u32| epoch + RTT * 2 + Duration::from_millis(u64::from(i));
        let mut verdicts = Vec::new();
        for i in 0..CYCLE * 60 {
            let rtt = RttSample::flat(RTT).with_latest(RTT + queue_at(i % CYCLE));
            classifier.on_ack_batch(&AckBatch::new(arrival(i), rtt, 2400, 2, 0, false, None));
            let cycle = i / CYCLE;
            if i % CYCLE == CYCLE - 1 && cycle >= 8 {
                let phase = loss_phase(cycle);
                let frame = cycle * CYCLE + phase;
                let sent = arrival(frame) - RTT - queue_at(phase) + Duration::from_micros(50);
                let loss = CongestionEvent::loss(arrival(i), sent, 1, 1200, rtt);
                assert!(classifier.path().guard() > queue_at(CYCLE - 1));
                verdicts.push(classifier.classify(&loss, 1).verdict);
            }
        }
        verdicts
    }

    #[test]
    fn losses_that_keep_meeting_more_queue_than_usual_are_congestion_below_the_guard() {
        // Every loss at the top of the sawtooth, as an AQM drops: random by the guard until
        // enough of them have shown that they follow the queue.
        let at_the_top = verdicts_on_a_sawtooth(|_| 16);
        assert_eq!(at_the_top.first(), Some(&Verdict::Random));
        assert!(
            at_the_top.ends_with(&[Verdict::Congestion; 20]),
            "{at_the_top:?}"
        );
        // Losses spread over the cycle, as a channel's fall: every other one at the top, the
        // rest at the bottom, and no more than half of them above the median.
        let spread = verdicts_on_a_sawtooth(|cycle| if cycle % 2 == 0 { 16 } else { 3 });
        assert!(spread.iter().all(|&v| v == Verdict::Random), "{spread:?}");
    }

    /// Frames in pairs that arrive together, 8 ms apart: clumped as order-keeping jitter clumps
    /// them, so the flow's own bursts bound nothing.
    fn in_pairs(i: u32) -> u64 {
        8 * u64::from(i / 2)
    }

    #[test]
    fn a_queue_that_rises_or_falls_every_frame_is_a_trend_not_noise() {
        // Two milliseconds a frame, only ever up: a slow start's queue on a slow link; and only
        // ever down: a queue draining.
        for queue in [|i| 2.0 * f64::from(i), |i| 130.0 - 2.0 * f64::from(i)] {
            let path = fed(queue, in_pairs);
            assert!(path.is_noisy(), "the steps exceed the target");
            assert!(!path.is_noisy_beyond_trend(), "{:?}", path.jitter());
        }
        // The same steps, up and down: delay noise; and riding on a trend of a millisecond a
        // frame, still noise.
        let jittered = fed(|i| 2.0 * f64::from(i % 2), in_pairs);
        assert!(jittered.is_noisy() && jittered.is_noisy_beyond_trend());
        let rising = fed(|i| 2.0 * f64::from(i) + 2.0 * f64::from(i % 2), in_pairs);
        assert!(rising.is_noisy_beyond_trend(), "{:?}", rising.jitter());
    }

    #[test]
    fn a_quiet_path_s_step_means_reach_zero_not_subnormal_floats() {
        // One jittered frame, then a queue that steps by exactly nothing for 20 000 frames: the
        // means decay by a sixteenth a frame, past f64's normal range after some 11 000.
        let mut path = PathModel::default();
        let epoch = Instant::now();
        for i in 0..20_000u32 {
            let queue = if i == 1 {
                Duration::from_millis(3)
            } else {
                Duration::ZERO
            };
            let rtt = RttSample::flat(RTT).with_latest(RTT + queue);
            let now = epoch + RTT * 2 + Duration::from_micros(100) * i;
            path.on_ack_batch(&AckBatch::new(now, rtt, 2400, 2, 0, false, None));
        }
        for mean in [
            path.successive_difference,
            path.queue_drift,
            path.trendless_difference,
            path.raw_successive_difference,
        ] {
            assert!(mean == 0.0 || mean.is_normal(), "{mean:e}");
        }
        assert_eq!(path.jitter(), Duration::ZERO);
    }

    #[test]
    fn a_frame_the_receiver_s_timer_held_is_not_jitter_once_its_ack_delay_is_known() {
        // A steady 2 ms queue, frames 4 ms apart; every eighth frame acknowledges a lone packet
        // that the receiver's delayed-ACK timer held 25 ms, and the next frame's resolution
        // credits that as ACK Delay (as quinn's estimator shows it, one frame late).
        let timer = Duration::from_millis(25);
        let queue = Duration::from_millis(2);
        let mut path = PathModel::default();
        let epoch = Instant::now();
        let mut held: Option<RttSample> = None;
        for i in 0..128u32 {
            let now = epoch + RTT * 2 + Duration::from_millis(4 * u64::from(i));
            let late = if i % 8 == 7 { timer } else { Duration::ZERO };
            let rtt = RttSample::flat(RTT).with_latest(RTT + queue + late);
            let resolved = held
                .take()
                .map(|r| RttSample::new(r.latest, RTT, RTT, r.latest - RTT - queue));
            path.on_ack_batch(&AckBatch::new(now, rtt, 2400, 2, 0, false, resolved));
            held = Some(rtt);
        }
        // The raw samples jump by 25 ms twice every eight frames; the corrected ones do not move.
        assert!(
            path.raw_successive_difference > 0.004,
            "{}",
            path.raw_successive_difference
        );
        assert!(
            !path.is_noisy(),
            "{:?} against a target of {:?}",
            path.jitter(),
            path.target()
        );
    }

    /// Three rounds of `in_flight` bytes delivered at `rate` bytes a second over a standing queue
    /// of `queue_ms`, as [`PathModel::learn_noise`] reads them.
    fn rounds(in_flight: f64, rate: f64, queue_ms: u64) -> [(f64, f64, Duration, Duration); 3] {
        let queue = Duration::from_millis(queue_ms);
        [(in_flight, rate, queue, queue); 3]
    }

    #[test]
    fn a_rate_that_falls_with_the_window_shows_the_queue_was_noise_unless_a_filler_is_near() {
        // The window falls by a fifth and the rate with it, over the same 12 ms "queue": behind
        // a full pipe a fifth less data would have drained 25 ms of it.
        let fall = [rounds(100_000.0, 1e6, 12), rounds(80_000.0, 8e5, 12)].concat();
        // The same fall with the rate held: the pipe was full, and the queue drained.
        let drained = [rounds(100_000.0, 1e6, 32), rounds(80_000.0, 1e6, 12)].concat();
        let learnt = |history: &[(f64, f64, Duration, Duration)], filler_near: bool| {
            let mut path = fed(|i| 2.0 * f64::from(i % 2), in_pairs);
            path.noise = Duration::from_millis(8);
            path.set_other_flow_near(filler_near);
            path.history = history.iter().copied().collect();
            path.learn_noise();
            path.noise
        };
        assert_eq!(learnt(&fall, false), Duration::from_millis(12));
        assert_eq!(learnt(&drained, false), Duration::from_millis(6));
        // Beside a buffer-filler, the rate falls with the window as the other flow takes what it
        // frees: no reading.
        assert_eq!(learnt(&fall, true), Duration::from_millis(8));
    }

    #[test]
    fn a_rise_read_across_an_overflow_is_no_reading_of_the_pipe() {
        // The data in flight rises by an eighth and the rate with it, over the same 20 ms: the
        // pipe was not full, and the 20 ms were noise. So a jittered path reads; so does a flow
        // whose neighbour is backing off from the overflow both just met, over its queue.
        let before = rounds(290_000.0, 1.7e6, 20);
        let after = rounds(330_000.0, 1.9e6, 20);
        let learnt = |overflow_between: bool| {
            let mut path = fed(|i| 2.0 * f64::from(i % 2), in_pairs);
            path.history = before.iter().copied().collect();
            if overflow_between {
                path.forget_rounds();
            }
            path.history.extend(after);
            path.learn_noise();
            path.noise
        };
        assert_eq!(learnt(false), Duration::from_millis(20));
        // Across the overflow the rounds before it are forgotten, and three rounds make no
        // comparison: the queue is not taken for noise.
        assert_eq!(learnt(true), Duration::ZERO);
    }

    /// `path` fed `frames` more frames of two packets each, acknowledged one by one so that
    /// rounds end, whose queue is `queue_ms(i)` ms at frame `i` (from 0 for each call), arriving
    /// `arrival_ms(i)` ms after `start_ms` past `epoch`.
    fn fed_rounds(
        path: &mut PathModel,
        epoch: Instant,
        start_ms: u64,
        frames: u32,
        queue_ms: impl Fn(u32) -> f64,
        arrival_ms: impl Fn(u32) -> u64,
    ) {
        for i in 0..frames {
            let latest = RTT + Duration::from_secs_f64(queue_ms(i) / 1000.0);
            let now = epoch + RTT * 2 + Duration::from_millis(start_ms + arrival_ms(i));
            let rtt = RttSample::flat(RTT).with_latest(latest);
            for _ in 0..2 {
                path.on_ack(&Ack::new(now, now - latest, 1200, false, rtt));
            }
            path.on_ack_batch(&AckBatch::new(now, rtt, 2400, 2, 0, false, None));
        }
    }

    #[test]
    fn jitter_that_goes_quiet_within_a_round_keeps_the_path_noisy_until_a_quiet_round() {
        // Frames clumped in pairs (no burst of the flow's makes them), a millisecond apart on
        // average: rounds of about a hundred frames. Three rounds of 3 ms steps, then the delay
        // holds still.
        let (mut path, epoch) = (PathModel::default(), Instant::now());
        fed_rounds(
            &mut path,
            epoch,
            0,
            300,
            |i| 3.0 * f64::from(i % 2),
            in_pairs_1ms,
        );
        assert!(path.is_noisy());
        fed_rounds(&mut path, epoch, 300, 50, |_| 3.0, in_pairs_1ms);
        assert!(
            path.jitter() < path.target(),
            "the frames' spread has decayed: {:?}",
            path.jitter()
        );
        assert!(path.is_noisy(), "the last round was noisy throughout");
        // Two rounds later, a whole round has been quiet.
        fed_rounds(&mut path, epoch, 350, 250, |_| 3.0, in_pairs_1ms);
        assert!(!path.is_noisy(), "{:?}", path.round_spread);
    }

    #[test]
    fn a_round_of_the_flows_own_sawtooth_does_not_keep_the_path_noisy() {
        // Bursts of eight packets into a link that takes 2 ms a packet, frames 4 ms apart as the
        // link delivers them (`the_sawtooth_of_the_flows_own_bursts_is_not_noise`), for three
        // rounds and more; then the delay holds still.
        let (mut path, epoch) = (PathModel::default(), Instant::now());
        let every_4ms = |i: u32| 4 * u64::from(i);
        fed_rounds(
            &mut path,
            epoch,
            0,
            100,
            |i| 4.0 * f64::from(i % 4),
            every_4ms,
        );
        assert!(path.is_noisy(), "the steps exceed the target");
        fed_rounds(&mut path, epoch, 400, 20, |_| 4.0, every_4ms);
        assert!(path.jitter() < path.target(), "{:?}", path.jitter());
        assert!(
            path.round_spread.last > path.target(),
            "the last round's mean read noisy"
        );
        assert!(!path.is_noisy(), "{:?}", path.round_spread);
    }

    /// Frames in pairs that arrive together, 2 ms apart.
    fn in_pairs_1ms(i: u32) -> u64 {
        2 * u64::from(i / 2)
    }

    #[test]
    fn the_sawtooth_of_the_flows_own_bursts_is_not_noise() {
        // Bursts of eight packets into a link that takes 2 ms a packet: the queue rises 4 ms a
        // frame and falls at once, and the frames arrive as the link delivers, 4 ms apart.
        let sawtooth = |i: u32| 4.0 * f64::from(i % 4);
        let own = fed(sawtooth, |i| 4 * u64::from(i));
        assert!(own.is_noisy(), "the steps exceed the target");
        let step = own.own_burst_step().as_secs_f64();
        assert!((step - 0.004).abs() < 1e-6, "{step}");
        assert!(!own.is_noisy_beyond_trend(), "{:?}", own.jitter());
        // A host that hands two frames over at one instant, once, leaves the bound as it was.
        let batched = fed(sawtooth, |i| 4 * u64::from(if i == 41 { 40 } else { i }));
        assert!(
            !batched.is_noisy_beyond_trend(),
            "{:?}",
            batched.own_burst_step()
        );
        // The same delays on frames that arrive in clumps: no burst of the flow's makes them.
        let clumped = fed(sawtooth, in_pairs);
        assert_eq!(clumped.own_burst_step(), Duration::ZERO);
        assert!(clumped.is_noisy_beyond_trend());
    }

    #[test]
    fn clumped_frames_read_as_noise_only_where_asked() {
        // Steps of a fifth of a millisecond, far below the 1 ms target: a quiet spread.
        let small = |i: u32| 0.2 * f64::from(i % 2);
        let read = |arrival: fn(u32) -> u64, noise_read| {
            let mut path = fed(small, arrival);
            path.set_noise_read(noise_read);
            path.is_noisy()
        };
        assert!(
            !read(in_pairs, NoiseRead::Spread),
            "the spread alone is quiet"
        );
        assert!(
            read(in_pairs, NoiseRead::Clumps),
            "frames in clumps are jitter's"
        );
        // Frames that arrive one by one are the flow's own pacing, whatever the rule.
        let one_by_one: fn(u32) -> u64 = |i| 4 * u64::from(i);
        assert!(!read(one_by_one, NoiseRead::Clumps));
    }
}
