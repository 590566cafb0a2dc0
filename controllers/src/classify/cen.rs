//! Spike and ZigZag (Cen, Cosman, Voelker, "End-to-end differentiation of congestion and wireless
//! losses", IEEE/ACM ToN 11(5), 2003, section III) and Trend (Hsiao et al., "A new multimedia
//! packet loss classification algorithm for congestion control over wired/wireless channels",
//! ICASSP 2005, which builds on Cen et al.), as [`Classifier`]s.
//!
//! All three read the relative one-way trip time (ROTT) of the packets the receiver gets. QUIC
//! has no one-way delay without extensions; the stand-in is the forward one-way-delay hint of the
//! ACK-delay-corrected RTT sample ([`RttSample::owd_hint`]): half the minimum RTT plus all
//! queueing. Only differences of ROTT matter to these schemes, and the hint moves with the
//! queueing delay as the ROTT does. It is fed once per ACK frame, from
//! [`AckBatch::resolved`] (the frame whose ACK delay is known), and at each loss from the
//! sample of the ACK that revealed it (sent at once by a QUIC receiver, RFC 9000 section 13.2.1,
//! so without ACK delay). The frame of a loss is not fed a second time when its corrected sample
//! comes round one frame later.
//!
//! The `packet_loss_classification` crate (0.1.0) implements the three schemes; it is used where
//! it serves, with these differences:
//! - Its state only moves when `classify` is called, so every ACK frame's hint is passed to
//!   `classify` and the answer dropped; a loss's answer is the one that counts.
//! - Its constructors panic on bad parameters, so parameters are validated here first
//!   ([`ParamError`]). Its types do not implement `Clone`, so a clone here starts a fresh crate
//!   classifier with the same parameters. Clones are made when a factory builds a
//!   connection's controller from its unused prototype, and by quinn's `clone_box` for a new
//!   path, whose delays owe nothing to the old one's.
//! - Its ZigZag deviation update, `dev = (1 - 2a) + 2a |rott - mean|`, drops the previous
//!   deviation (the paper's is `dev = (1 - 2a) dev + 2a |rott - mean|`), so ZigZag is written
//!   here in a few lines.
//! - Hints are whole multiples of a granularity (1 ms by default, [`super::DEFAULT_GRANULARITY`])
//!   before they reach Spike and Trend, and ZigZag raises its thresholds by one granularity: the
//!   schemes compare single samples, and microseconds of serialisation jitter on a flat path
//!   would otherwise read as spikes and rising trends.

use std::time::Duration;

use packet_loss_classification as plc;

use super::{Classification, Classifier, DEFAULT_GRANULARITY};
use crate::event::{AckBatch, CongestionEvent, RttSample, Verdict};
use crate::param::{self, param, Param, ParamError, Params};

/// The ROTT stand-in of one sample, in whole granularities.
fn rott(rtt: &RttSample, granularity: Duration) -> f64 {
    let g = granularity.as_nanos().max(1);
    (rtt.owd_hint().as_nanos() / g) as f64
}

/// Which resolved samples to feed: not the one of the frame that revealed the last loss, which
/// the loss fed already.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Feed {
    skip_next: bool,
}

impl Feed {
    fn resolved(&mut self, batch: &AckBatch) -> Option<RttSample> {
        let resolved = batch.resolved?;
        if std::mem::take(&mut self.skip_next) {
            return None;
        }
        Some(resolved)
    }

    fn loss(&mut self) {
        self.skip_next = true;
    }
}

/// What Spike and Trend share: the crate's classifier sees every resolved frame's hint, in
/// `granularity` units, and judges a loss from the hint of the frame that revealed it.
struct CrateClassifier<'a, F> {
    feed: &'a mut Feed,
    granularity: Duration,
    classify: F,
}

impl<F: FnMut(f64) -> plc::PacketLoss> CrateClassifier<'_, F> {
    fn on_ack_batch(mut self, batch: &AckBatch) {
        if let Some(rtt) = self.feed.resolved(batch) {
            (self.classify)(rott(&rtt, self.granularity));
        }
    }

    /// `reasons`: what the log says for a congestion verdict, and for a random one.
    fn classify(mut self, event: &CongestionEvent, reasons: [&'static str; 2]) -> Classification {
        self.feed.loss();
        let (verdict, reason) = match (self.classify)(rott(&event.rtt, self.granularity)) {
            plc::PacketLoss::Congestion => (Verdict::Congestion, reasons[0]),
            plc::PacketLoss::Wireless => (Verdict::Random, reasons[1]),
        };
        Classification {
            verdict,
            threshold: None,
            reason,
        }
    }
}

/// Spike (Cen et al. section III-B): the path is in a spike state from the moment the ROTT rises
/// above `min + alpha * (max - min)` until it falls below `min + beta * (max - min)`; a loss in a
/// spike is congestion, any other random. The crate's `Spike` does the work.
#[derive(Debug)]
pub struct Spike {
    alpha: f64,
    beta: f64,
    granularity: Duration,
    inner: plc::Spike,
    feed: Feed,
}

impl Spike {
    /// The paper's spike start: half way from the minimum to the maximum ROTT.
    pub const DEFAULT_ALPHA: f64 = 0.5;
    /// The paper's spike end: a third of the way.
    pub const DEFAULT_BETA: f64 = 1.0 / 3.0;

    /// `alpha` and `beta` are fractions from 0 to 1 with `beta <= alpha`; `granularity` is the
    /// delay resolution, longer than zero.
    pub fn new(alpha: f64, beta: f64, granularity: Duration) -> Result<Self, ParamError> {
        let alpha = param::fraction("alpha", alpha)?;
        let beta = param::fraction("beta", beta)?;
        let granularity = param::positive_duration("granularity", granularity)?;
        if beta > alpha {
            return Err(ParamError {
                name: "beta",
                value: beta.to_string(),
                expected: "a number no larger than alpha (the spike ends below where it starts)",
            });
        }
        Ok(Self {
            alpha,
            beta,
            granularity,
            inner: plc::Spike::new(alpha, beta),
            feed: Feed::default(),
        })
    }
}

impl Default for Spike {
    fn default() -> Self {
        Self {
            alpha: Self::DEFAULT_ALPHA,
            beta: Self::DEFAULT_BETA,
            granularity: DEFAULT_GRANULARITY,
            inner: plc::Spike::new(Self::DEFAULT_ALPHA, Self::DEFAULT_BETA),
            feed: Feed::default(),
        }
    }
}

impl Clone for Spike {
    /// A fresh classifier with the same parameters (the crate's type cannot be cloned).
    fn clone(&self) -> Self {
        Self {
            inner: plc::Spike::new(self.alpha, self.beta),
            feed: Feed::default(),
            ..*self
        }
    }
}

impl Spike {
    fn crate_classifier(&mut self) -> CrateClassifier<'_, impl FnMut(f64) -> plc::PacketLoss + '_> {
        CrateClassifier {
            feed: &mut self.feed,
            granularity: self.granularity,
            classify: |rott| self.inner.classify(rott),
        }
    }
}

impl Classifier for Spike {
    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.crate_classifier().on_ack_batch(batch);
    }

    fn classify(&mut self, event: &CongestionEvent, _losses_in_window: u64) -> Classification {
        self.crate_classifier().classify(
            event,
            [
                "spike: one-way delay in a spike",
                "spike: one-way delay outside a spike",
            ],
        )
    }
}

/// ZigZag (Cen et al. section III-C): with `n` packets lost in a row, a loss is random if the
/// ROTT is below `mean - dev` (n = 1), `mean - dev / 2` (n = 2), `mean` (n = 3) or
/// `mean + dev / 2` (n > 3), where `mean` and `dev` are exponential averages with gain `alpha`
/// (`dev` with `2 * alpha`). Each threshold is raised by one granularity (see the module
/// documentation). `n` is the number of packets the ACK declared lost, quinn's closest figure
/// to the paper's run of consecutive losses.
///
/// Written here rather than taken from the crate, whose deviation update drops the previous
/// deviation: `dev = (1 - 2a) + 2a |rott - mean|` instead of `(1 - 2a) dev + 2a |rott - mean|`.
#[derive(Debug, Clone, PartialEq)]
pub struct ZigZag {
    alpha: f64,
    granularity: Duration,
    /// Mean and deviation of the ROTT stand-in, in seconds; `None` before the first sample.
    mean_dev: Option<(f64, f64)>,
    feed: Feed,
}

impl ZigZag {
    /// The paper's gain: 1/32.
    pub const DEFAULT_ALPHA: f64 = 1.0 / 32.0;

    /// `alpha` above 0 and at most 0.5 (the deviation's gain is `2 * alpha`); `granularity`
    /// longer than zero.
    pub fn new(alpha: f64, granularity: Duration) -> Result<Self, ParamError> {
        let alpha = param::open_fraction("alpha", alpha)?;
        if alpha > 0.5 {
            return Err(ParamError {
                name: "alpha",
                value: alpha.to_string(),
                expected: "a number above 0 and at most 0.5 (the deviation's gain is 2 * alpha)",
            });
        }
        let granularity = param::positive_duration("granularity", granularity)?;
        Ok(Self {
            alpha,
            granularity,
            mean_dev: None,
            feed: Feed::default(),
        })
    }

    fn observe(&mut self, rott: f64) -> (f64, f64) {
        let a = self.alpha;
        let (mean, dev) = match self.mean_dev {
            None => (rott, 0.0),
            Some((mean, dev)) => {
                let mean = (1.0 - a) * mean + a * rott;
                (mean, (1.0 - 2.0 * a) * dev + 2.0 * a * (rott - mean).abs())
            }
        };
        self.mean_dev = Some((mean, dev));
        (mean, dev)
    }

    /// The ROTT below which `lost` packets in a row are random, given `mean` and `dev`.
    fn threshold(mean: f64, dev: f64, lost: u64) -> f64 {
        match lost {
            0 | 1 => mean - dev,
            2 => mean - dev / 2.0,
            3 => mean,
            _ => mean + dev / 2.0,
        }
    }
}

impl Default for ZigZag {
    fn default() -> Self {
        Self {
            alpha: Self::DEFAULT_ALPHA,
            granularity: DEFAULT_GRANULARITY,
            mean_dev: None,
            feed: Feed::default(),
        }
    }
}

impl Classifier for ZigZag {
    fn on_ack_batch(&mut self, batch: &AckBatch) {
        if let Some(rtt) = self.feed.resolved(batch) {
            self.observe(rtt.owd_hint().as_secs_f64());
        }
    }

    fn classify(&mut self, event: &CongestionEvent, _losses_in_window: u64) -> Classification {
        self.feed.loss();
        let rott = event.rtt.owd_hint().as_secs_f64();
        let (mean, dev) = self.observe(rott);
        let threshold =
            Self::threshold(mean, dev, event.lost_packets) + self.granularity.as_secs_f64();
        let (verdict, reason) = if rott < threshold {
            (
                Verdict::Random,
                "zigzag: one-way delay below the threshold for the run of losses",
            )
        } else {
            (
                Verdict::Congestion,
                "zigzag: one-way delay at or above the threshold",
            )
        };
        Classification {
            verdict,
            threshold: Duration::try_from_secs_f64(threshold.max(0.0)).ok(),
            reason,
        }
    }
}

/// Trend (Hsiao et al. 2005): `s = (1 - gamma) * s + gamma * [rott rose]` over successive
/// samples; a loss while `s > threshold` (the delay is in an ascending phase) is congestion,
/// otherwise random. The crate's `Trend` does the work.
#[derive(Debug)]
pub struct Trend {
    gamma: f64,
    threshold: f64,
    granularity: Duration,
    inner: plc::Trend,
    feed: Feed,
}

impl Trend {
    /// The paper's gain: 1/30.
    pub const DEFAULT_GAMMA: f64 = 1.0 / 30.0;
    /// The paper's threshold on the share of rising samples: 0.4.
    pub const DEFAULT_THRESHOLD: f64 = 0.4;

    /// `gamma` above 0 and below 1, `threshold` from 0 to 1, `granularity` longer than zero.
    pub fn new(gamma: f64, threshold: f64, granularity: Duration) -> Result<Self, ParamError> {
        let gamma = param::open_fraction("gamma", gamma)?;
        let threshold = param::fraction("threshold", threshold)?;
        let granularity = param::positive_duration("granularity", granularity)?;
        Ok(Self {
            gamma,
            threshold,
            granularity,
            inner: plc::Trend::new(gamma, threshold),
            feed: Feed::default(),
        })
    }
}

impl Default for Trend {
    fn default() -> Self {
        Self {
            gamma: Self::DEFAULT_GAMMA,
            threshold: Self::DEFAULT_THRESHOLD,
            granularity: DEFAULT_GRANULARITY,
            inner: plc::Trend::new(Self::DEFAULT_GAMMA, Self::DEFAULT_THRESHOLD),
            feed: Feed::default(),
        }
    }
}

impl Clone for Trend {
    /// A fresh classifier with the same parameters (the crate's type cannot be cloned).
    fn clone(&self) -> Self {
        Self {
            inner: plc::Trend::new(self.gamma, self.threshold),
            feed: Feed::default(),
            ..*self
        }
    }
}

impl Trend {
    fn crate_classifier(&mut self) -> CrateClassifier<'_, impl FnMut(f64) -> plc::PacketLoss + '_> {
        CrateClassifier {
            feed: &mut self.feed,
            granularity: self.granularity,
            classify: |rott| self.inner.classify(rott),
        }
    }
}

impl Classifier for Trend {
    fn on_ack_batch(&mut self, batch: &AckBatch) {
        self.crate_classifier().on_ack_batch(batch);
    }

    fn classify(&mut self, event: &CongestionEvent, _losses_in_window: u64) -> Classification {
        self.crate_classifier().classify(
            event,
            [
                "trend: one-way delay rising",
                "trend: one-way delay not rising",
            ],
        )
    }
}

// The registry sets each parameter on its own, checked alone, then builds the classifier whole
// from them (`check`), which also checks how they bound each other.

impl Params for Spike {
    const PARAMS: &'static [Param<Self>] = &[
        param!(
            alpha: f64 = param::fraction,
            "the spike starts at min + alpha x (max - min) of the one-way delay"
        ),
        param!(
            beta: f64 = param::fraction,
            "the spike ends at min + beta x (max - min); at most alpha"
        ),
        param!(
            granularity: Duration = param::positive_duration,
            "RTT differences below this are noise"
        ),
    ];

    fn check(&mut self) -> Result<(), ParamError> {
        *self = Self::new(self.alpha, self.beta, self.granularity)?;
        Ok(())
    }
}

impl Params for ZigZag {
    const PARAMS: &'static [Param<Self>] = &[
        param!(
            alpha: f64 = param::open_fraction,
            "weight of a new sample in the mean and deviation (above 0, at most 0.5)"
        ),
        param!(
            granularity: Duration = param::positive_duration,
            "RTT differences below this are noise"
        ),
    ];

    fn check(&mut self) -> Result<(), ParamError> {
        *self = Self::new(self.alpha, self.granularity)?;
        Ok(())
    }
}

impl Params for Trend {
    const PARAMS: &'static [Param<Self>] = &[
        param!(
            gamma: f64 = param::open_fraction,
            "weight of a new sample in the smoothed trend"
        ),
        param!(
            threshold: f64 = param::fraction,
            "smoothed rising fraction above which a loss is congestion"
        ),
        param!(
            granularity: Duration = param::positive_duration,
            "RTT differences below this are noise"
        ),
    ];

    fn check(&mut self) -> Result<(), ParamError> {
        *self = Self::new(self.gamma, self.threshold, self.granularity)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    const MS: Duration = Duration::from_millis(1);
    const BASE: Duration = Duration::from_millis(40);

    /// Feeds one ACK frame per millisecond whose corrected RTT is `rtts[i]`, then a loss of
    /// `lost` packets revealed by an ACK with RTT `at_loss`.
    fn run<C: Classifier>(c: &mut C, rtts: &[Duration], at_loss: Duration, lost: u64) -> Verdict {
        let t0 = Instant::now();
        let sample = |latest: Duration| RttSample {
            latest,
            smoothed: BASE,
            min: BASE,
            ack_delay: Duration::ZERO,
        };
        for (i, &rtt) in rtts.iter().enumerate() {
            c.on_ack_batch(&AckBatch {
                now: t0 + MS * i as u32,
                rtt: sample(rtt),
                acked_bytes: 2400,
                acked_packets: 2,
                owed_at_once: true,
                in_flight: 24_000,
                app_limited: false,
                resolved: Some(sample(rtt)),
            });
        }
        let now = t0 + MS * rtts.len() as u32;
        let event = CongestionEvent::loss(now, now - at_loss / 2, lost, 1200, sample(at_loss));
        c.classify(&event, lost).verdict
    }

    fn flat() -> Vec<Duration> {
        vec![BASE; 200]
    }

    /// 100 flat samples, then a queue building by 0.5 ms per frame for 60 frames.
    fn spike() -> Vec<Duration> {
        let mut v = vec![BASE; 100];
        v.extend((1..=60).map(|i| BASE + MS * i / 2));
        v
    }

    fn spike_top() -> Duration {
        BASE + 30 * MS
    }

    #[test]
    fn spike_reads_a_delay_spike_as_congestion_and_flat_delay_as_random() {
        assert_eq!(
            run(&mut Spike::default(), &flat(), BASE, 1),
            Verdict::Random
        );
        assert_eq!(
            run(&mut Spike::default(), &spike(), spike_top(), 1),
            Verdict::Congestion
        );
        // Microseconds of jitter are below the granularity.
        let jitter: Vec<_> = (0..200u32)
            .map(|i| BASE + Duration::from_micros(u64::from(i % 7) * 40))
            .collect();
        assert_eq!(
            run(&mut Spike::default(), &jitter, BASE, 1),
            Verdict::Random
        );
    }

    #[test]
    fn zigzag_reads_a_delay_spike_as_congestion_and_flat_delay_as_random() {
        for lost in 1..=5 {
            assert_eq!(
                run(&mut ZigZag::default(), &flat(), BASE, lost),
                Verdict::Random
            );
            assert_eq!(
                run(&mut ZigZag::default(), &spike(), spike_top(), lost),
                Verdict::Congestion
            );
        }
    }

    #[test]
    fn zigzag_deviation_keeps_its_history() {
        let mut z = ZigZag::default();
        z.observe(0.040);
        z.observe(0.050);
        let (_, dev) = z.observe(0.040);
        // The paper's update: dev stays well below 1 s; the crate's would be near 1 - 2a.
        assert!(dev < 0.01, "{dev}");
        assert!(dev > 0.0);
    }

    #[test]
    fn trend_reads_a_rising_delay_as_congestion_and_flat_delay_as_random() {
        assert_eq!(
            run(&mut Trend::default(), &flat(), BASE, 1),
            Verdict::Random
        );
        assert_eq!(
            run(&mut Trend::default(), &spike(), spike_top(), 1),
            Verdict::Congestion
        );
    }

    #[test]
    fn the_loss_frame_is_fed_once() {
        let mut f = Feed::default();
        let batch = AckBatch {
            now: Instant::now(),
            rtt: RttSample::flat(BASE),
            acked_bytes: 1200,
            acked_packets: 1,
            owed_at_once: false,
            in_flight: 0,
            app_limited: false,
            resolved: Some(RttSample::flat(BASE)),
        };
        assert!(f.resolved(&batch).is_some());
        f.loss();
        assert!(f.resolved(&batch).is_none());
        assert!(f.resolved(&batch).is_some());
    }

    #[test]
    fn bad_parameters_are_errors_not_panics() {
        assert_eq!(Spike::new(0.3, 0.5, MS).unwrap_err().name, "beta");
        assert_eq!(Spike::new(f64::NAN, 0.1, MS).unwrap_err().name, "alpha");
        assert_eq!(
            Spike::new(0.5, 0.3, Duration::ZERO).unwrap_err().name,
            "granularity"
        );
        assert_eq!(ZigZag::new(0.0, MS).unwrap_err().name, "alpha");
        assert_eq!(ZigZag::new(0.7, MS).unwrap_err().name, "alpha");
        assert_eq!(Trend::new(1.0, 0.4, MS).unwrap_err().name, "gamma");
        assert_eq!(Trend::new(0.1, -0.4, MS).unwrap_err().name, "threshold");
        assert!(Spike::new(0.5, 0.5, MS).is_ok());
        assert!(ZigZag::new(0.5, MS).is_ok());
        assert!(Trend::new(0.5, 1.0, MS).is_ok());
    }

    #[test]
    fn a_clone_starts_fresh_with_the_same_parameters() {
        let mut s = Spike::new(0.6, 0.2, MS).unwrap();
        run(&mut s, &spike(), spike_top(), 1);
        let mut c = s.clone();
        assert_eq!((c.alpha, c.beta, c.granularity), (0.6, 0.2, MS));
        // The original is still in its spike; the clone has seen one sample only.
        assert_eq!(run(&mut s, &[], spike_top(), 1), Verdict::Congestion);
        assert_eq!(run(&mut c, &[], spike_top(), 1), Verdict::Random);
    }
}
