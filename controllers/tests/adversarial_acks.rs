//! Every controller of the registry, driven through quinn's `Controller` trait by random rounds
//! of sends, ACK frames with any ACK Delay up to quinn's 25 ms cap, losses, ECN marks,
//! persistent congestion and MTU changes, in the manner of s2n-quic's congestion-controller
//! fuzz target (`quic/s2n-quic-core/src/recovery/congestion_controller/fuzz_target.rs`).
//!
//! The adversary is the lying receiver of RFC 9000 section 21.4's optimistic-ACK family, aimed at
//! the ACK Delay (section 19.3): quinn's estimator is a real one, frozen, so the adapter recovers
//! as each frame's ACK Delay everything its sample shows above the smoothed RTT (`rtt.rs`:
//! `ack_delay = latest - (8 * after - 7 * before)`), and a frame that waited `d` in a queue reads
//! as a frame the receiver held for `d`: every queue is hidden, as the oracle liar hides it.
//!
//! Per step: no panic; the window is at least one MSS and far from overflowing; the bytes in
//! flight quinn would hand `on_end_acks` follow the model (what was sent, less what was
//! acknowledged or declared lost). Per loss episode (one round: every packet of it was in
//! flight when the first loss was found, `episode.rs`): once more than half the window (and more
//! than four packets), or more than 256 packets, are lost, the crate's controllers cut the window
//! whatever the delays say (`classify/mod.rs`, `half_window_lost` and `RECEIVER_GAP_BUDGET`).

#[path = "loopback/mod.rs"]
mod loopback;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use quinn_discern::classify::RECEIVER_GAP_BUDGET;
use quinn_discern::registry;
use quinn_proto::congestion::Controller;
use quinn_proto::RttEstimator;

/// quinn's cap on the ACK Delay it credits: a quinn receiver's `max_ack_delay` (RFC 9000 section
/// 18.2's default).
const MAX_ACK_DELAY_US: u64 = 25_000;

/// The smallest QUIC datagram (RFC 9000 section 14): every MTU the tests set is at least this.
const MIN_MTU: u16 = 1200;

/// What happens to one packet of a round.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fate {
    Acked,
    Lost,
    /// Acknowledged in a frame that carries an ECN-CE count increase.
    Marked,
}

/// One round: the sender fills what the window allows (at most `packets`), then the receiver's
/// frames come back, each claiming `ack_delays_us` (cycled) of ACK Delay on top of the path's RTT.
#[derive(Debug, Clone)]
struct Round {
    packets: u16,
    fates: Vec<Fate>,
    ack_delays_us: Vec<u64>,
    /// Packets per ACK frame (a QUIC receiver acknowledges every second packet, a decimating
    /// one every tenth).
    per_frame: u8,
    app_limited: bool,
    /// An MTU change before the round.
    mtu: Option<u16>,
    /// The round ends in persistent congestion (RFC 9002 section 7.6).
    persistent: bool,
}

fn fate() -> impl Strategy<Value = Fate> {
    prop_oneof![16 => Just(Fate::Acked), 3 => Just(Fate::Lost), 1 => Just(Fate::Marked)]
}

fn round() -> impl Strategy<Value = Round> {
    (
        1u16..400,
        // Whole-round loss bursts as well as scattered losses.
        prop_oneof![
            3 => prop::collection::vec(fate(), 1..64),
            1 => prop::collection::vec(Just(Fate::Lost), 1..8),
        ],
        prop::collection::vec(
            prop_oneof![Just(0u64), Just(MAX_ACK_DELAY_US), 0..=MAX_ACK_DELAY_US],
            1..8,
        ),
        prop_oneof![Just(2u8), Just(1u8), Just(10u8)],
        prop::bool::weighted(0.1),
        prop::option::weighted(0.05, MIN_MTU..=1452),
        prop::bool::weighted(0.02),
    )
        .prop_map(
            |(packets, fates, ack_delays_us, per_frame, app_limited, mtu, persistent)| Round {
                packets,
                fates,
                ack_delays_us,
                per_frame,
                app_limited,
                mtu,
                persistent,
            },
        )
}

/// quinn's estimator as a real connection left it; only quinn-proto can build one.
fn rtt_estimator() -> &'static RttEstimator {
    static ESTIMATOR: OnceLock<RttEstimator> = OnceLock::new();
    ESTIMATOR.get_or_init(loopback::real_rtt_estimator)
}

/// Every id of the registry, and a classifier in front of each of quinn's loss-based controllers.
fn ids() -> Vec<String> {
    registry::catalog()
        .iter()
        .map(|c| c.id.to_owned())
        .chain([
            "composite+quinn-cubic".into(),
            "discern+quinn-newreno".into(),
        ])
        .collect()
}

/// quinn's own controllers answer loss by their own rules, not this crate's, and so does quinn's
/// CUBIC behind a filter: the filter passes the event on (`loss_filter.rs`), but quinn's CUBIC
/// opens a recovery period when it enters congestion avoidance without a loss (its `on_ack`
/// sets `recovery_start_time`), and then ignores the loss of any packet sent before.
fn keeps_the_crate_bound(id: &str) -> bool {
    !id.starts_with("quinn-") && !id.ends_with("+quinn-cubic")
}

/// One packet in flight.
#[derive(Debug, Clone, Copy)]
struct Sent {
    number: u64,
    at: Instant,
    bytes: u64,
}

/// The sender's side as quinn keeps it: packet numbers, what is in flight, the clock, the
/// packets found lost but not yet declared, and the loss episode as `episode.rs` counts it.
struct Sender {
    controller: Box<dyn Controller>,
    id: String,
    now: Instant,
    next_number: u64,
    mtu: u16,
    in_flight: u64,
    /// Lost packets quinn has not declared yet: it declares a packet lost once a later one is
    /// acknowledged (RFC 9002 section 6.1).
    pending: Vec<Sent>,
    episode: Episode,
    /// When the window last fell: the controller is in recovery for packets sent before it.
    last_cut: Option<Instant>,
}

/// The current loss episode (`episode.rs`): opened by a loss event; a later event whose newest
/// lost packet was sent at or before the opening belongs to it.
#[derive(Default)]
struct Episode {
    opened: Option<Instant>,
    lost: u64,
    /// The episode's earliest lost packet's send time.
    first_sent: Option<Instant>,
}

impl Sender {
    fn new(id: &str) -> Self {
        let factory = registry::parse(id).unwrap().factory();
        let now = Instant::now() + Duration::from_secs(10);
        Sender {
            controller: factory.build(now, MIN_MTU),
            id: id.to_owned(),
            now,
            next_number: 0,
            mtu: MIN_MTU,
            in_flight: 0,
            pending: Vec::new(),
            episode: Episode::default(),
            last_cut: None,
        }
    }

    /// The checks every step must pass.
    fn check(&self) -> Result<(), TestCaseError> {
        let w = self.controller.window();
        prop_assert!(w >= u64::from(MIN_MTU), "{}: window {w}", self.id);
        prop_assert!(w < 1 << 48, "{}: window {w} runs away", self.id);
        Ok(())
    }

    /// Sends what the window lets quinn send, at most `packets`, 100 us apart.
    fn send(&mut self, packets: u16) -> Vec<Sent> {
        let mut sent = Vec::new();
        let bytes = u64::from(self.mtu);
        // quinn sends while `in_flight + size < window`; always at least one packet, as a probe.
        while sent.len() < usize::from(packets)
            && (sent.is_empty() || self.in_flight + bytes < self.controller.window())
        {
            self.now += Duration::from_micros(100);
            let p = Sent {
                number: self.next_number,
                at: self.now,
                bytes,
            };
            self.next_number += 1;
            self.in_flight += bytes;
            self.controller.on_sent(self.now, bytes, p.number);
            sent.push(p);
        }
        sent
    }

    /// A congestion event at `now` for packets up to one sent at `sent`; notes a cut.
    fn congestion(&mut self, sent: Instant, persistent: bool, lost_bytes: u64) {
        let before = self.controller.window();
        self.controller
            .on_congestion_event(self.now, sent, persistent, lost_bytes);
        if self.controller.window() < before {
            self.last_cut = Some(self.now);
        }
    }

    /// Declares the pending lost packets older than `largest` acknowledged, one event (as quinn
    /// does per ACK frame), and checks the bound on the episode.
    fn declare_lost(&mut self, largest: u64) -> Result<(), TestCaseError> {
        let (lost, kept): (Vec<Sent>, Vec<Sent>) =
            self.pending.iter().partition(|p| p.number < largest);
        self.pending = kept;
        let (Some(oldest), Some(newest)) = (lost.first(), lost.last()) else {
            return Ok(());
        };
        let bytes: u64 = lost.iter().map(|p| p.bytes).sum();
        let mss = u64::from(self.mtu);
        let window_packets = self.controller.window() / mss;
        // quinn reports lost bytes, not packets: after an MTU change, packets of the old size
        // count as the bytes they carry.
        let lost_packets = bytes.div_ceil(mss);
        // Near a floor (Tahoe restarts at one MSS) a cut may be no cut at all.
        let at_floor = self.controller.window() <= 4 * mss + 1;
        self.in_flight -= bytes;
        let e = &mut self.episode;
        match e.opened {
            Some(opened) if newest.at <= opened => e.lost += lost_packets,
            _ => {
                *e = Episode {
                    opened: Some(self.now),
                    lost: lost_packets,
                    first_sent: Some(oldest.at),
                }
            }
        }
        self.congestion(newest.at, false, bytes);
        self.check()?;
        let e = &self.episode;
        let over = e.lost > (window_packets / 2).max(4) || e.lost > RECEIVER_GAP_BUDGET;
        // The window fell after the episode's first lost packet left: it answered this flight.
        let answered = self
            .last_cut
            .zip(e.first_sent)
            .is_some_and(|(cut, first)| cut >= first);
        if over && keeps_the_crate_bound(&self.id) && !at_floor {
            prop_assert!(
                answered,
                "{}: {} packets lost in one window of {} with every queue hidden, and the window \
                 never fell (now {})",
                self.id,
                e.lost,
                window_packets,
                self.controller.window()
            );
        }
        Ok(())
    }
}

/// Runs one round.
fn play(s: &mut Sender, r: &Round, smoothed: Duration) -> Result<(), TestCaseError> {
    if let Some(mtu) = r.mtu {
        s.mtu = mtu;
        s.controller.on_mtu_update(mtu);
        s.check()?;
    }
    let sent = s.send(r.packets);
    let mut delays = r.ack_delays_us.iter().cycle();
    let mut fates = r.fates.iter().cycle();
    for frame in sent.chunks(usize::from(r.per_frame)) {
        let newest = frame[frame.len() - 1];
        // The frame's sample: the path's RTT plus what the receiver claims it held the ACK.
        let delay = Duration::from_micros(*delays.next().unwrap());
        s.now = s.now.max(newest.at + smoothed + delay);
        let mut largest = None;
        let mut marked = false;
        for p in frame {
            match fates.next().unwrap() {
                Fate::Lost => s.pending.push(*p),
                fate => {
                    marked |= *fate == Fate::Marked;
                    s.controller
                        .on_ack(s.now, p.at, p.bytes, r.app_limited, rtt_estimator());
                    s.in_flight -= p.bytes;
                    largest = Some(p.number);
                }
            }
        }
        let Some(largest) = largest else { continue };
        s.controller
            .on_end_acks(s.now, s.in_flight, r.app_limited, Some(largest));
        s.check()?;
        if marked {
            // quinn reports an ECN-CE increase as a congestion event without lost bytes.
            s.congestion(newest.at, false, 0);
            s.check()?;
        }
        s.declare_lost(largest)?;
    }
    if r.persistent {
        s.now += Duration::from_millis(1);
        s.congestion(sent[sent.len() - 1].at, true, 0);
        s.check()?;
    }
    let pending: u64 = s.pending.iter().map(|p| p.bytes).sum();
    prop_assert_eq!(
        s.in_flight,
        pending,
        "{}: in flight is what was sent less what was acknowledged or declared lost",
        s.id
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_ack_delay_buys_more_loss_than_the_bound(rounds in prop::collection::vec(round(), 1..40)) {
        let smoothed = rtt_estimator().get();
        for id in ids() {
            let mut sender = Sender::new(&id);
            for r in &rounds {
                play(&mut sender, r, smoothed)?;
            }
        }
    }
}

/// A case the property once found: `discern`, its queue its own, lost five of the nine packets
/// of one window while the ACK Delay hid the queue, and took out the queue it saw (none).
#[test]
fn half_a_window_lost_behind_a_hidden_queue_cuts_the_window() {
    use Fate::{Acked as A, Lost as L};
    let round = |packets, fates, ack_delays_us, per_frame| Round {
        packets,
        fates,
        ack_delays_us,
        per_frame,
        app_limited: false,
        mtu: None,
        persistent: false,
    };
    let rounds = [
        round(10, vec![A], vec![0], 2),
        round(
            20,
            [vec![L, A, L], vec![A; 16]].concat(),
            vec![0, 0, MAX_ACK_DELAY_US],
            1,
        ),
        round(11, vec![L, L, A, A, A], vec![0], 2),
    ];
    let smoothed = rtt_estimator().get();
    for id in ids() {
        let mut sender = Sender::new(&id);
        for r in &rounds {
            if let Err(e) = play(&mut sender, r, smoothed) {
                panic!("{e}");
            }
        }
    }
}
