//! One random path: a typed value drawn from a seeded generator. Path `k` of draw `S` depends on
//! `(S, k)` alone, so a draw of 50 paths is the first 50 of a draw of 200 with the same seed, and
//! any one path can be drawn again on its own (`--only-path K`).
//!
//! The distributions, and why each range, are in docs/evaluation.md ("Random paths"); the
//! constants below are the ones that text names.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::scenario::LossModel;

/// The bottleneck's rate, log-uniform between these (Mbit/s).
pub const RATE_MBIT: (f64, f64) = (1.0, 1000.0);
/// The base round-trip time, log-uniform between these (ms).
pub const RTT_MS: (f64, f64) = (5.0, 300.0);
/// A drop-tail buffer, log-uniform between these multiples of the path's BDP.
pub const BUFFER_BDP: (f64, f64) = (0.25, 8.0);
/// The mean random loss rate of a lossy path, log-uniform between these.
pub const LOSS_RATE: (f64, f64) = (0.0001, 0.03);
/// Gilbert-Elliott's chance per packet of leaving the bad state, uniform between these: bursts
/// of 2 to 5 packets on average.
pub const BURST_EXIT: (f64, f64) = (0.2, 0.5);
/// Jitter's mean (exponential) or maximum (uniform), uniform between these (ms).
pub const JITTER_MS: (f64, f64) = (1.0, 10.0);
/// A decimating receiver acknowledges every this many packets (as s2n-quic and Chromium do).
pub const DECIMATION: u32 = 10;
/// The recorded capacity traces a path may replay, in the traces folder.
pub const TRACES: [&str; 3] = [
    "TMobile-LTE-short.down",
    "ATT-LTE-driving-2016.down",
    "TMobile-UMTS-driving.down",
];

/// Chances of each choice; every list sums to 1.
const P_TRACE: f64 = 0.10;
const P_QUEUE: [(Discipline, f64); 4] = [
    (Discipline::DropTail, 0.4),
    (Discipline::Codel, 0.2),
    (Discipline::Pie, 0.2),
    (Discipline::FqCodel, 0.2),
];
/// No loss, Bernoulli, Gilbert-Elliott.
const P_LOSS: [f64; 3] = [0.5, 0.25, 0.25];
/// No jitter, exponential, uniform.
const P_JITTER: [f64; 3] = [0.6, 0.2, 0.2];
const P_DECIMATED: f64 = 0.15;
const P_PEER: [(Option<PeerKind>, f64); 5] = [
    (None, 0.4),
    (Some(PeerKind::Newreno), 0.15),
    (Some(PeerKind::QuinnCubic), 0.15),
    (Some(PeerKind::QuinnBbr), 0.15),
    (Some(PeerKind::Copy), 0.15),
];
const P_TIMING: [(PeerTiming, f64); 3] = [
    (PeerTiming::Whole, 0.6),
    (PeerTiming::ArrivesLate, 0.2),
    (PeerTiming::LeavesEarly, 0.2),
];

/// What carries the bottleneck's packets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Capacity {
    /// A fixed rate, in kbit/s (whole, so that the scenario text is exact).
    Fixed { rate_kbit: u64 },
    /// A recorded capacity trace, one of [`TRACES`].
    Trace { file: String },
}

/// The bottleneck's queue discipline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Discipline {
    DropTail,
    Codel,
    Pie,
    FqCodel,
}

impl Discipline {
    pub fn as_str(self) -> &'static str {
        match self {
            Discipline::DropTail => "drop-tail",
            Discipline::Codel => "codel",
            Discipline::Pie => "pie",
            Discipline::FqCodel => "fq-codel",
        }
    }
}

/// Random loss on the bottleneck.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "model")]
pub enum PathLoss {
    None,
    Bernoulli {
        rate: f64,
    },
    /// Gilbert's two-state channel (every packet lost in the bad state), `mean` the long-run
    /// loss rate and `r` the chance of leaving the bad state.
    GilbertElliott {
        mean: f64,
        r: f64,
    },
}

impl PathLoss {
    /// The scenario's loss model. Gilbert's stationary loss rate is p / (p + r), so
    /// p = mean r / (1 - mean).
    pub fn model(self) -> LossModel {
        match self {
            PathLoss::None => LossModel::None,
            PathLoss::Bernoulli { rate } => LossModel::Bernoulli { rate },
            PathLoss::GilbertElliott { mean, r } => LossModel::gilbert(mean * r / (1.0 - mean), r),
        }
    }

    /// The long-run fraction of packets lost.
    pub fn mean_rate(self) -> f64 {
        match self {
            PathLoss::None => 0.0,
            PathLoss::Bernoulli { rate } => rate,
            PathLoss::GilbertElliott { mean, .. } => mean,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PathLoss::None => "none",
            PathLoss::Bernoulli { .. } => "bernoulli",
            PathLoss::GilbertElliott { .. } => "gilbert-elliott",
        }
    }
}

/// Extra per-packet delay on the bottleneck, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "model")]
pub enum PathJitter {
    None,
    Exponential { mean_us: u64 },
    Uniform { max_us: u64 },
}

impl PathJitter {
    pub fn name(self) -> &'static str {
        match self {
            PathJitter::None => "none",
            PathJitter::Exponential { .. } => "exponential",
            PathJitter::Uniform { .. } => "uniform",
        }
    }

    /// The mean or maximum, in seconds; 0 without jitter.
    pub fn scale_s(self) -> f64 {
        self.scale_us() as f64 / 1e6
    }

    /// The mean or maximum in milliseconds, as the draw made it (whole tenths): what tables and
    /// descriptions print, without the float error a product with `scale_s` carries (9.7 ms, not
    /// 9.700000000000001).
    pub fn scale_ms(self) -> f64 {
        self.scale_us() as f64 / 1e3
    }

    fn scale_us(self) -> u64 {
        match self {
            PathJitter::None => 0,
            PathJitter::Exponential { mean_us } => mean_us,
            PathJitter::Uniform { max_us } => max_us,
        }
    }
}

/// Who shares the bottleneck with the controller under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PeerKind {
    Newreno,
    QuinnCubic,
    QuinnBbr,
    /// A second flow of the controller under test.
    Copy,
}

impl PeerKind {
    /// The peer's controller id beside `controller`.
    pub fn id(self, controller: &str) -> &str {
        match self {
            PeerKind::Newreno => "newreno",
            PeerKind::QuinnCubic => "quinn-cubic",
            PeerKind::QuinnBbr => "quinn-bbr",
            PeerKind::Copy => controller,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PeerKind::Newreno => "newreno",
            PeerKind::QuinnCubic => "quinn-cubic",
            PeerKind::QuinnBbr => "quinn-bbr",
            PeerKind::Copy => "copy",
        }
    }
}

/// When the peer sends (the run's layout in time is [`super::render`]'s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PeerTiming {
    /// From the start to the end.
    Whole,
    /// Joins a flow that has had the link to itself.
    ArrivesLate,
    /// Sends a fixed transfer and leaves; the run goes on without it.
    LeavesEarly,
}

impl PeerTiming {
    pub fn name(self) -> &'static str {
        match self {
            PeerTiming::Whole => "whole",
            PeerTiming::ArrivesLate => "arrives-late",
            PeerTiming::LeavesEarly => "leaves-early",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Peer {
    pub kind: PeerKind,
    pub timing: PeerTiming,
}

/// One drawn path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RandomPath {
    /// Its place in the draw, from 0.
    pub index: usize,
    /// The runs' seed (loss, jitter and every other random choice of the simulator).
    pub seed: u64,
    pub capacity: Capacity,
    /// Base round-trip time in microseconds, to 0.1 ms.
    pub rtt_us: u64,
    /// A drop-tail buffer in BDPs, to 0.01 (an AQM's queue is long: see [`super::render`]).
    pub buffer_bdp: f64,
    pub queue: Discipline,
    pub loss: PathLoss,
    pub jitter: PathJitter,
    /// The receiver acknowledges every [`DECIMATION`] packets.
    pub decimated: bool,
    pub peer: Option<Peer>,
}

/// Path `index` of draw `seed`.
pub fn draw(seed: u64, index: usize) -> RandomPath {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&(index as u64).to_le_bytes());
    key[16..24].copy_from_slice(b"paths-v1");
    let mut rng = ChaCha8Rng::from_seed(key);
    let u = |rng: &mut ChaCha8Rng| rng.gen::<f64>();
    let run_seed = rng.gen::<u32>() as u64;
    let capacity = if u(&mut rng) < P_TRACE {
        let i = ((u(&mut rng) * TRACES.len() as f64) as usize).min(TRACES.len() - 1);
        Capacity::Trace {
            file: TRACES[i].to_string(),
        }
    } else {
        let mbit = log_uniform(u(&mut rng), RATE_MBIT);
        Capacity::Fixed {
            rate_kbit: (mbit * 1000.0).round() as u64,
        }
    };
    let rtt_ms = log_uniform(u(&mut rng), RTT_MS);
    let buffer_bdp = (log_uniform(u(&mut rng), BUFFER_BDP) * 100.0).round() / 100.0;
    let queue = pick(u(&mut rng), &P_QUEUE);
    let loss = match pick_index(u(&mut rng), &P_LOSS) {
        0 => PathLoss::None,
        1 => PathLoss::Bernoulli {
            rate: round_sig(log_uniform(u(&mut rng), LOSS_RATE)),
        },
        _ => PathLoss::GilbertElliott {
            mean: round_sig(log_uniform(u(&mut rng), LOSS_RATE)),
            r: round_sig(uniform(u(&mut rng), BURST_EXIT)),
        },
    };
    let jitter_us = |x: f64| (uniform(x, JITTER_MS) * 10.0).round() as u64 * 100;
    let jitter = match pick_index(u(&mut rng), &P_JITTER) {
        0 => PathJitter::None,
        1 => PathJitter::Exponential {
            mean_us: jitter_us(u(&mut rng)),
        },
        _ => PathJitter::Uniform {
            max_us: jitter_us(u(&mut rng)),
        },
    };
    let decimated = u(&mut rng) < P_DECIMATED;
    let peer = pick(u(&mut rng), &P_PEER).map(|kind| Peer {
        kind,
        timing: pick(u(&mut rng), &P_TIMING),
    });
    RandomPath {
        index,
        seed: run_seed,
        capacity,
        rtt_us: (rtt_ms * 10.0).round() as u64 * 100,
        buffer_bdp,
        queue,
        loss,
        jitter,
        decimated,
        peer,
    }
}

/// The first `n` paths of draw `seed`.
pub fn draw_all(seed: u64, n: usize) -> Vec<RandomPath> {
    (0..n).map(|k| draw(seed, k)).collect()
}

/// `x` in [0, 1) mapped log-uniformly onto `range`.
fn log_uniform(x: f64, (lo, hi): (f64, f64)) -> f64 {
    (lo.ln() + x * (hi.ln() - lo.ln())).exp()
}

fn uniform(x: f64, (lo, hi): (f64, f64)) -> f64 {
    lo + x * (hi - lo)
}

/// Rounded to three significant digits, so that the CSV and the scenario text stay readable.
fn round_sig(v: f64) -> f64 {
    let scale = 10f64.powi(2 - v.abs().log10().floor() as i32);
    (v * scale).round() / scale
}

/// The index whose cumulative chance first exceeds `x`.
fn pick_index(x: f64, chances: &[f64]) -> usize {
    let mut sum = 0.0;
    for (i, p) in chances.iter().enumerate() {
        sum += p;
        if x < sum {
            return i;
        }
    }
    chances.len() - 1
}

fn pick<T: Copy>(x: f64, choices: &[(T, f64)]) -> T {
    let chances: Vec<f64> = choices.iter().map(|(_, p)| *p).collect();
    choices[pick_index(x, &chances)].0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_depends_on_the_seed_and_its_index_alone() {
        assert_eq!(draw_all(7, 30)[..10], draw_all(7, 10)[..]);
        assert_eq!(draw(7, 12), draw_all(7, 13)[12]);
        assert_ne!(draw(7, 0), draw(8, 0));
        assert_ne!(draw(7, 0), draw(7, 1));
    }

    #[test]
    fn a_jitter_prints_in_the_tenths_of_a_millisecond_it_was_drawn_in() {
        for (us, printed) in [(9700, "9.7"), (5900, "5.9"), (1000, "1")] {
            let jitter = PathJitter::Uniform { max_us: us };
            assert_eq!(format!("{}", jitter.scale_ms()), printed);
        }
    }

    #[test]
    fn every_choice_is_in_its_range_and_each_kind_turns_up() {
        let paths = draw_all(1, 400);
        for p in &paths {
            let rtt_ms = p.rtt_us as f64 / 1000.0;
            assert!(
                (RTT_MS.0 - 0.05..=RTT_MS.1 + 0.05).contains(&rtt_ms),
                "{p:?}"
            );
            assert!((0.25..=8.0).contains(&p.buffer_bdp), "{p:?}");
            if let Capacity::Fixed { rate_kbit } = p.capacity {
                assert!((1000..=1_000_000).contains(&rate_kbit), "{p:?}");
            }
            let loss = p.loss.mean_rate();
            assert!(
                loss == 0.0 || (LOSS_RATE.0..=LOSS_RATE.1).contains(&loss),
                "{p:?}"
            );
            let jitter = p.jitter.scale_s();
            assert!(jitter == 0.0 || (0.001..=0.010).contains(&jitter), "{p:?}");
        }
        let share = |f: &dyn Fn(&RandomPath) -> bool| {
            paths.iter().filter(|p| f(p)).count() as f64 / paths.len() as f64
        };
        // Loose bounds around the stated chances: 400 draws put each within a few points.
        assert!((0.3..0.5).contains(&share(&|p| p.peer.is_none())));
        assert!((0.4..0.6).contains(&share(&|p| p.loss == PathLoss::None)));
        assert!((0.03..0.2).contains(&share(&|p| matches!(p.capacity, Capacity::Trace { .. }))));
        assert!((0.05..0.25).contains(&share(&|p| p.decimated)));
        assert!((0.3..0.5).contains(&share(&|p| p.queue == Discipline::DropTail)));
        assert!((0.5..0.7).contains(&share(&|p| p.jitter == PathJitter::None)));
        let gigabit =
            share(&|p| matches!(p.capacity, Capacity::Fixed { rate_kbit } if rate_kbit > 300_000));
        assert!((0.1..0.25).contains(&gigabit), "{gigabit}");
    }

    #[test]
    fn gilbert_elliott_keeps_the_drawn_mean() {
        let loss = PathLoss::GilbertElliott { mean: 0.01, r: 0.3 };
        assert!((loss.model().mean_rate().unwrap() - 0.01).abs() < 1e-12);
    }
}
