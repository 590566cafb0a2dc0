//! The drain probe of `discern`'s shared mode: is the standing queue still another flow's?
//!
//! A flow that competes for a buffer cannot tell from its own samples when the other flow has
//! left: a loss-based flow alone keeps a deep buffer full by itself (after a cut by `beta`, a
//! buffer of more than `(1 - beta) / beta` BDP stays partly full), and Little's law holds per flow,
//! so its own data in flight and delivery rate give the same RTT whoever else is queued. The one
//! test is to empty its own share of the queue and look, as BBR's ProbeRTT drains the data in
//! flight to see the path's minimum RTT (draft-cardwell-iccrg-bbr-congestion-control-02, section
//! 4.3.4.4) and Copa leaves its competitive mode once the queue nearly empties (Arun and
//! Balakrishnan, NSDI 2018, section 2.3).
//!
//! While the queue is shared, every [`DRAIN_INTERVAL_ROUNDS`] rounds, or sooner when
//! [`JUMP_ROUNDS`] rounds in a row show the other flow gone, the window falls to half the pipe
//! the flow delivers. A round shows it gone in one of two ways:
//! - it delivers [`RATE_JUMP`] times the average before it per byte of window: the round trip
//!   shrank. A flow that only cut its window takes its share back within a few rounds, and while
//!   it does, its queue is briefly short, which would read as the flow's own; the rate is taken
//!   per byte of window, since a flow that holds a small share raises its rate by half within a
//!   few rounds of its own growth.
//! - it delivers [`WHOLE_LINK_SHARE`] of the link's rate: the rate the flow last delivered with
//!   the link to itself, raised past any rate a probe then found shared ([`AloneRate`]). Where
//!   the flow holds most of a deep buffer, its own queue is most of the round trip, and the other
//!   flow's leaving shortens it by less than a jump; but a buffer-filler still there keeps a
//!   window of its own queued, and leaves the flow nine tenths of the link only while that window
//!   is a ninth of the flow's.
//!
//! Two rounds after the window falls, the packets sent after the cut
//! have been acknowledged: if the standing queue then reads short, the queue was the flow's own and
//! it leaves the shared mode with the small window, which its own mode refills within a few rounds;
//! otherwise the window it had comes back. A probe costs about one queue's drain time and one round
//! trip at half rate; the interval keeps that to a few percent of a competing flow's goodput.

/// Rounds between drain probes while the queue stays another flow's.
pub const DRAIN_INTERVAL_ROUNDS: u32 = 32;
/// The fewest rounds between two probes, however the rate moves: a restored window raises the
/// rate of the round after it.
pub const MIN_ROUNDS_BETWEEN: u32 = 8;
/// A round whose delivery rate per byte of window is this many times the average before it has
/// jumped. Per byte of window the rate is one over the round trip. Where the flow held an even
/// share of a deep buffer, the other flow kept half the queue, and its leaving at most about
/// doubles the rate per byte; but the flow that stays grows into the emptied buffer (CUBIC
/// fastest right after the queue falls), so over the rounds the check counts the jump lasts
/// only part of that: a third is asked for, not a half.
pub const RATE_JUMP: f64 = 1.3;
/// Rounds in a row that jumped, after which a probe starts at once.
pub const JUMP_ROUNDS: u32 = 4;
/// The share of the link's rate that a round delivers only where no other buffer-filler is left,
/// or one is left with a window under a ninth of the flow's: it then holds too little of the
/// queue for the flow to yield it.
pub const WHOLE_LINK_SHARE: f64 = 0.9;
/// Weight of a round in the recent average delivery rate.
const RATE_GAIN: f64 = 1.0 / 8.0;
/// Rounds a probe lasts: one for the cut to reach the bottleneck, one for its packets to return.
const DRAIN_ROUNDS: u32 = 2;
/// The share of the delivered pipe the window falls to during a probe: below the pipe, so that
/// the flow's own queue empties whatever the estimate's error.
const DRAIN_FRACTION: f64 = 0.5;

/// Rounds of the own mode past slow start after which the flow's delivery rate is the link's: by
/// then a slow start's overshoot has drained and the window has settled at the pipe. The own
/// mode that a probe's false verdict begins (the other flow's queue drained for a moment) lasts
/// only until the other flow's queue shows again, a few rounds.
pub const SETTLED_ROUNDS: u64 = 16;

/// The delivery rate the flow last had with the link to itself: the best of the last
/// [`SETTLED_ROUNDS`] rounds, once the own mode has lasted that long past slow start, and raised
/// past any rate a drain probe then found shared ([`DrainProbe::link_rate`]). A flow that started
/// beside a buffer-filler has none (its slow start's best is a share of unknown size) until a
/// probe finds one, and a contest's drain probe watches meanwhile only for a jump of the rate per
/// byte.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AloneRate {
    settling_since: Option<u64>,
    rate: f64,
}

impl AloneRate {
    /// The end of round `round`: `settled` where the queue is the flow's own and slow start is
    /// over, and `recent_peak`, the best delivery rate of the last [`SETTLED_ROUNDS`] rounds.
    pub fn on_round(&mut self, round: u64, settled: bool, recent_peak: f64) {
        if !settled {
            self.settling_since = None;
            return;
        }
        let since = *self.settling_since.get_or_insert(round);
        if round.saturating_sub(since) >= SETTLED_ROUNDS {
            self.rate = recent_peak;
        }
    }

    /// A drain probe's reading of the link's rate (bytes per second): the link carries at least
    /// that much, until the own mode settles again and shows what it carries.
    pub fn raise(&mut self, link_rate: f64) {
        self.rate = self.rate.max(link_rate);
    }

    /// Bytes per second; zero where the flow has never had the link to itself.
    pub fn rate(&self) -> f64 {
        self.rate
    }
}

/// What the algorithm does to its window after a round of the shared mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrainAction {
    /// Set the window to this many bytes (a probe begins, or ends with the queue still shared).
    Resize(u64),
    /// The queue emptied: it was the flow's own. Keep the drained window.
    LeaveShared,
}

/// Where the probe stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Rounds since the last probe ended (or the shared mode began), and rounds in a row that
    /// showed the other flow gone.
    Waiting { rounds: u32, gone: u32 },
    /// A probe: the window `saved` before it, the delivery rate of the round before it (bytes
    /// per second, and per byte of the window then), and the rounds it has lasted.
    Draining {
        saved: u64,
        rate_before: f64,
        per_byte_before: f64,
        rounds: u32,
    },
}

/// The probe's state, reset each time the shared mode begins.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DrainProbe {
    phase: Phase,
    /// Recent average delivery rate per byte of window (one over the round trip), of the rounds
    /// outside probes.
    average_rate: f64,
    /// The link's rate as far as the flow knows it, bytes per second (zero where unknown).
    link_rate: f64,
}

impl Default for DrainProbe {
    fn default() -> Self {
        Self::new(0.0)
    }
}

impl DrainProbe {
    /// A probe for a contest that began with the link's rate at `link_rate` bytes per second as
    /// far as the flow knows it ([`AloneRate`]; zero where it does not).
    pub fn new(link_rate: f64) -> Self {
        Self {
            phase: Phase::Waiting { rounds: 0, gone: 0 },
            average_rate: 0.0,
            link_rate,
        }
    }

    /// The link's rate as far as the probe knows it, bytes per second (zero where unknown).
    pub fn link_rate(&self) -> f64 {
        self.link_rate
    }

    /// Whether a probe is under way.
    pub fn is_draining(&self) -> bool {
        matches!(self.phase, Phase::Draining { .. })
    }

    /// One round of the shared mode ended, with delivery rate `rate` (bytes per second) and the
    /// standing queue `short` (below what the flow would keep alone) or not, the window at `cwnd`
    /// bytes and the pipe the round delivered, `pipe` bytes (rate x minimum RTT).
    pub fn on_round(
        &mut self,
        rate: f64,
        short: bool,
        cwnd: u64,
        pipe: f64,
    ) -> Option<DrainAction> {
        match self.phase {
            Phase::Waiting { rounds, gone } => {
                let per_byte = rate / cwnd.max(1) as f64;
                let jumped = rate_jumped(per_byte, self.average_rate);
                if !jumped {
                    // The average moves only outside a jump, so that a lasting one is measured
                    // against the rate before it.
                    self.average_rate = average(self.average_rate, per_byte);
                }
                let gone = if jumped || self.has_whole_link(rate) {
                    gone + 1
                } else {
                    0
                };
                let due = rounds + 1 >= DRAIN_INTERVAL_ROUNDS
                    || rounds + 1 >= MIN_ROUNDS_BETWEEN && gone >= JUMP_ROUNDS;
                if !due || pipe <= 0.0 {
                    self.phase = Phase::Waiting {
                        rounds: rounds + 1,
                        gone,
                    };
                    return None;
                }
                self.phase = Phase::Draining {
                    saved: cwnd,
                    rate_before: rate,
                    per_byte_before: per_byte,
                    rounds: 0,
                };
                Some(DrainAction::Resize((pipe * DRAIN_FRACTION) as u64))
            }
            Phase::Draining {
                rounds: ref mut lasted,
                ..
            } if *lasted + 1 < DRAIN_ROUNDS => {
                *lasted += 1;
                None
            }
            Phase::Draining {
                saved,
                rate_before,
                per_byte_before,
                ..
            } => {
                self.phase = Phase::Waiting { rounds: 0, gone: 0 };
                if short {
                    return Some(DrainAction::LeaveShared);
                }
                // The queue is still another flow's, so whatever rate led here is the one to
                // measure the next jump against: an average from rounds whose round trip no
                // longer holds (slow start's) would read every later round as a jump. And that
                // rate was a share, so a later round shows the whole link only by beating it by
                // as much as the whole link beats a share (rounds' rates vary by a few percent).
                self.average_rate = per_byte_before;
                let whole_link_from = rate_before / WHOLE_LINK_SHARE;
                self.link_rate = self.link_rate.max(whole_link_from / WHOLE_LINK_SHARE);
                Some(DrainAction::Resize(saved.max(cwnd)))
            }
        }
    }

    /// Whether a round at `rate` delivered the whole link's rate: no buffer-filler is left.
    fn has_whole_link(&self, rate: f64) -> bool {
        self.link_rate > 0.0 && rate >= WHOLE_LINK_SHARE * self.link_rate
    }

    /// A congestion response scaled the window by `factor` during a probe: the window to restore
    /// shrinks with it.
    pub fn on_reduction(&mut self, factor: f64) {
        if let Phase::Draining { saved, .. } = &mut self.phase {
            *saved = (*saved as f64 * factor) as u64;
        }
    }
}

/// Whether `rate` is a jump above the recent `average`: the other flow has left or backed off.
fn rate_jumped(rate: f64, average: f64) -> bool {
    average > 0.0 && rate >= RATE_JUMP * average
}

/// The recent average with one more round.
fn average(average: f64, rate: f64) -> f64 {
    if average <= 0.0 {
        rate
    } else {
        average + (rate - average) * RATE_GAIN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PIPE: f64 = 100_000.0;

    /// `n` rounds at `rate` with the queue long and the window at 200 kB, or at half the pipe
    /// while a probe drains.
    fn rounds(probe: &mut DrainProbe, n: u32, rate: f64) -> Vec<DrainAction> {
        (0..n)
            .filter_map(|_| {
                let cwnd = if probe.is_draining() { 50_000 } else { 200_000 };
                probe.on_round(rate, false, cwnd, PIPE)
            })
            .collect()
    }

    #[test]
    fn a_probe_drains_to_half_the_pipe_every_interval_and_restores_a_queue_that_stays() {
        let mut probe = DrainProbe::default();
        let actions = rounds(&mut probe, DRAIN_INTERVAL_ROUNDS, 1e6);
        assert_eq!(actions, [DrainAction::Resize(50_000)]);
        assert!(probe.is_draining());
        let actions = rounds(&mut probe, DRAIN_ROUNDS, 1e6);
        assert_eq!(actions, [DrainAction::Resize(200_000)]);
        assert!(!probe.is_draining());
    }

    #[test]
    fn a_queue_that_empties_in_the_probe_was_the_flow_s_own() {
        let mut probe = DrainProbe::default();
        rounds(&mut probe, DRAIN_INTERVAL_ROUNDS + DRAIN_ROUNDS - 1, 1e6);
        assert_eq!(
            probe.on_round(1e6, true, 50_000, PIPE),
            Some(DrainAction::LeaveShared)
        );
    }

    #[test]
    fn a_lasting_jump_of_the_delivery_rate_probes_at_once() {
        let mut probe = DrainProbe::default();
        rounds(&mut probe, MIN_ROUNDS_BETWEEN, 1e6);
        let actions = rounds(&mut probe, JUMP_ROUNDS, 2e6);
        assert_eq!(actions, [DrainAction::Resize(50_000)]);
    }

    #[test]
    fn a_brief_jump_as_the_other_flow_cuts_its_window_does_not_probe() {
        let mut probe = DrainProbe::default();
        rounds(&mut probe, MIN_ROUNDS_BETWEEN, 1e6);
        for _ in 0..3 {
            assert!(rounds(&mut probe, JUMP_ROUNDS - 1, 2e6).is_empty());
            assert!(rounds(&mut probe, 1, 1e6).is_empty());
        }
    }

    #[test]
    fn a_rate_that_grows_with_the_window_is_no_jump() {
        let mut probe = DrainProbe::default();
        for round in 0..DRAIN_INTERVAL_ROUNDS - 1 {
            let cwnd = 50_000 * (1 + u64::from(round));
            let rate = cwnd as f64 * 5.0;
            assert_eq!(
                probe.on_round(rate, false, cwnd, PIPE),
                None,
                "round {round}"
            );
        }
    }

    #[test]
    fn a_jump_that_a_probe_finds_still_shared_is_the_rate_later_rounds_are_measured_against() {
        let mut probe = DrainProbe::default();
        rounds(&mut probe, 1, 1e6);
        let started = (0..MIN_ROUNDS_BETWEEN + JUMP_ROUNDS)
            .find(|_| !rounds(&mut probe, 1, 2e6).is_empty())
            .is_some();
        assert!(started && probe.is_draining());
        rounds(&mut probe, DRAIN_ROUNDS, 2e6);
        assert!(!probe.is_draining());
        let actions = rounds(&mut probe, DRAIN_INTERVAL_ROUNDS - 1, 2e6);
        assert!(actions.is_empty(), "{actions:?}");
    }

    /// Where the flow's own queue is most of the round trip, the other flow's leaving raises the
    /// rate per byte by less than a jump; the whole link's rate still shows it gone.
    #[test]
    fn rounds_at_the_whole_link_s_rate_probe_at_once_where_the_round_trip_hardly_shrinks() {
        let mut probe = DrainProbe::new(2e6);
        for _ in 0..MIN_ROUNDS_BETWEEN {
            assert_eq!(probe.on_round(1.2e6, false, 200_000, PIPE), None);
        }
        let actions: Vec<_> = (0..JUMP_ROUNDS)
            .filter_map(|_| probe.on_round(1.9e6, false, 300_000, PIPE))
            .collect();
        assert_eq!(actions, [DrainAction::Resize(50_000)]);
    }

    /// A rate that a probe found shared is no sign of the whole link afterwards, though the link
    /// rate the contest began with said so: the flow never had the link to itself.
    #[test]
    fn a_rate_a_probe_found_shared_raises_the_whole_link_s_rate() {
        let mut probe = DrainProbe::new(1e6);
        let actions = rounds(&mut probe, MIN_ROUNDS_BETWEEN, 0.95e6);
        assert_eq!(actions, [DrainAction::Resize(50_000)]);
        rounds(&mut probe, DRAIN_ROUNDS, 0.95e6);
        assert!(!probe.is_draining());
        let actions = rounds(&mut probe, DRAIN_INTERVAL_ROUNDS - 1, 0.95e6);
        assert!(actions.is_empty(), "{actions:?}");
    }

    /// The own mode past slow start gives the link's rate only once it has lasted: the few rounds
    /// of own mode that a probe's false verdict begins give none, and slow start's best is
    /// never taken.
    #[test]
    fn the_alone_rate_is_the_best_of_a_settled_own_mode() {
        let mut alone = AloneRate::default();
        for round in 0..SETTLED_ROUNDS {
            alone.on_round(round, true, 1e6);
        }
        assert_eq!(alone.rate(), 0.0);
        alone.on_round(SETTLED_ROUNDS, false, 3e6);
        for round in SETTLED_ROUNDS + 1..2 * SETTLED_ROUNDS + 1 {
            alone.on_round(round, true, 2e6);
        }
        assert_eq!(alone.rate(), 0.0);
        alone.on_round(2 * SETTLED_ROUNDS + 1, true, 2e6);
        assert_eq!(alone.rate(), 2e6);
        // Later rounds elsewhere leave it as it was until the own mode settles again.
        alone.on_round(2 * SETTLED_ROUNDS + 2, false, 1e6);
        assert_eq!(alone.rate(), 2e6);
    }

    /// A loss during a probe shrinks the window it restores, not the rate per byte of window
    /// that later rounds are measured against: a round trip that then shrinks by the jump still
    /// starts the next probe early.
    #[test]
    fn a_loss_during_a_probe_leaves_the_jump_measured_against_the_rate_before_it() {
        let mut probe = DrainProbe::default();
        rounds(&mut probe, DRAIN_INTERVAL_ROUNDS, 1e6);
        probe.on_reduction(0.5);
        rounds(&mut probe, DRAIN_ROUNDS, 1e6);
        assert!(!probe.is_draining());
        // The same rate from a window cut by the loss: the round trip shrank by 1.4.
        let actions: Vec<_> = (0..MIN_ROUNDS_BETWEEN)
            .filter_map(|_| probe.on_round(1e6, false, 140_000, PIPE))
            .collect();
        assert_eq!(actions, [DrainAction::Resize(50_000)]);
    }

    #[test]
    fn a_loss_during_a_probe_shrinks_the_window_it_restores() {
        let mut probe = DrainProbe::default();
        rounds(&mut probe, DRAIN_INTERVAL_ROUNDS, 1e6);
        probe.on_reduction(0.7);
        let actions = rounds(&mut probe, DRAIN_ROUNDS, 1e6);
        assert_eq!(actions, [DrainAction::Resize(140_000)]);
    }
}
