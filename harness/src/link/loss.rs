//! Channel loss models of one link direction: what the wire does to a packet,
//! independent of queue overflow. Each direction owns its own seeded RNG, so adding a flow or a
//! link does not perturb the loss sequence of another link.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{nanos as from_duration, Nanos as VTime};
use crate::scenario::LossModel;

/// Which way a packet crosses a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Sender to receiver (data).
    Forward,
    /// Receiver to sender (ACKs).
    Reverse,
}

/// The RNG of one link direction, derived from the scenario seed, the link index and the direction.
pub fn link_rng(seed: u64, link: usize, dir: Direction) -> ChaCha8Rng {
    direction_rng(seed, link, dir, b"sim-loss")
}

/// The RNG of one link direction's delay variation (jitter, reordering): a stream of its own, so
/// turning jitter on does not change which packets the loss model drops.
pub fn variation_rng(seed: u64, link: usize, dir: Direction) -> ChaCha8Rng {
    direction_rng(seed, link, dir, b"sim-vary")
}

/// The RNG of one link direction's AQM (PIE's random drops): a stream of its own, so choosing
/// an AQM does not change the channel's losses or the delay variation.
pub fn aqm_rng(seed: u64, link: usize, dir: Direction) -> ChaCha8Rng {
    direction_rng(seed, link, dir, b"sim-aqm_")
}

fn direction_rng(seed: u64, link: usize, dir: Direction, stream: &[u8; 8]) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&(link as u64).to_le_bytes());
    key[16] = match dir {
        Direction::Forward => 1,
        Direction::Reverse => 2,
    };
    key[24..].copy_from_slice(stream);
    ChaCha8Rng::from_seed(key)
}

/// The state of a loss model on one link direction.
pub struct LossState {
    kind: Kind,
    rng: ChaCha8Rng,
}

enum Kind {
    None,
    Bernoulli {
        rate: f64,
    },
    GilbertElliott {
        p: f64,
        r: f64,
        /// P(delivery | bad)
        h: f64,
        /// P(delivery | good)
        k: f64,
        bad: bool,
    },
    Burst {
        every: VTime,
        drops: u32,
        next: VTime,
        left: Option<u32>,
        pending: u32,
    },
}

impl LossState {
    pub fn new(model: &LossModel, rng: ChaCha8Rng) -> Self {
        let kind = match *model {
            LossModel::None => Kind::None,
            LossModel::Bernoulli { rate } => Kind::Bernoulli { rate },
            LossModel::GilbertElliott { p, r, h, k } => Kind::GilbertElliott {
                p,
                r,
                h,
                k,
                bad: false,
            },
            LossModel::Burst {
                every,
                drops,
                start,
                count,
            } => Kind::Burst {
                every: from_duration(every),
                drops,
                next: from_duration(start),
                left: count,
                pending: 0,
            },
        };
        Self { kind, rng }
    }

    /// Whether the packet crossing the link at virtual time `t` is lost. Called once per packet,
    /// in the order packets cross, with non-decreasing `t`.
    pub fn lose(&mut self, t: VTime) -> bool {
        match &mut self.kind {
            Kind::None => false,
            Kind::Bernoulli { rate } => *rate > 0.0 && self.rng.gen::<f64>() < *rate,
            Kind::GilbertElliott { p, r, h, k, bad } => {
                // Decide delivery in the current state, then take this packet's transition.
                let deliver_p = if *bad { *h } else { *k };
                let lost = self.rng.gen::<f64>() >= deliver_p;
                let flip = if *bad { *r } else { *p };
                if self.rng.gen::<f64>() < flip {
                    *bad = !*bad;
                }
                lost
            }
            Kind::Burst {
                every,
                drops,
                next,
                left,
                pending,
            } => {
                // A burst that starts before the previous one has drained restarts the count.
                while t >= *next && left.is_none_or(|n| n > 0) {
                    *pending = *drops;
                    if let Some(n) = left {
                        *n -= 1;
                    }
                    if *every == 0 {
                        *left = Some(0);
                    } else {
                        *next = next.saturating_add(*every);
                    }
                }
                if *pending > 0 {
                    *pending -= 1;
                    true
                } else {
                    false
                }
            }
        }
    }
}

/// A short human-readable description of a loss model, e.g. `bernoulli 0.01`.
pub fn describe(model: &LossModel) -> String {
    match model {
        LossModel::None => "none".into(),
        LossModel::Bernoulli { rate } => format!("bernoulli {rate}"),
        LossModel::GilbertElliott { p, r, h, k } => {
            format!("gilbert-elliott p={p} r={r} h={h} k={k}")
        }
        LossModel::Burst {
            every,
            drops,
            start,
            count,
        } => {
            let count = count.map_or("unlimited".to_string(), |c| c.to_string());
            format!(
                "burst every={}s drops={drops} start={}s count={count}",
                every.as_secs_f64(),
                start.as_secs_f64()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn run(model: &LossModel, n: u64, spacing: VTime) -> u64 {
        let mut s = LossState::new(model, link_rng(7, 0, Direction::Forward));
        (0..n).filter(|i| s.lose(i * spacing)).count() as u64
    }

    #[test]
    fn bernoulli_rate_within_spread() {
        let n = 200_000;
        for rate in [0.001, 0.01, 0.1] {
            let lost = run(&LossModel::Bernoulli { rate }, n, 1000) as f64;
            let mean = rate * n as f64;
            let sd = (n as f64 * rate * (1.0 - rate)).sqrt();
            assert!(
                (lost - mean).abs() < 4.0 * sd,
                "rate {rate}: {lost} vs {mean}"
            );
        }
    }

    #[test]
    fn gilbert_elliott_mean_loss() {
        let n = 400_000;
        for (p, r, h, k) in [
            (0.01, 0.3, 0.0, 1.0),
            (0.05, 0.5, 0.2, 0.99),
            (0.002, 0.1, 0.5, 1.0),
        ] {
            let lost = run(&LossModel::GilbertElliott { p, r, h, k }, n, 1000) as f64 / n as f64;
            let expect = p * (1.0 - h) / (p + r) + r * (1.0 - k) / (p + r);
            assert!(
                (lost - expect).abs() < 0.12 * expect + 0.0005,
                "p={p} r={r} h={h} k={k}: {lost} vs {expect}"
            );
        }
    }

    #[test]
    fn burst_drops_exactly() {
        let model = LossModel::Burst {
            every: Duration::from_millis(500),
            drops: 4,
            start: Duration::from_millis(100),
            count: Some(3),
        };
        // One packet per millisecond for 5 s: plenty of packets per burst.
        assert_eq!(run(&model, 5000, 1_000_000), 12);
        let unlimited = LossModel::Burst {
            every: Duration::from_millis(500),
            drops: 4,
            start: Duration::ZERO,
            count: None,
        };
        assert_eq!(run(&unlimited, 5000, 1_000_000), 40);
    }

    #[test]
    fn directions_have_independent_streams() {
        let m = LossModel::Bernoulli { rate: 0.5 };
        let mut a = LossState::new(&m, link_rng(1, 0, Direction::Forward));
        let mut b = LossState::new(&m, link_rng(1, 0, Direction::Reverse));
        let sa: Vec<bool> = (0..64).map(|t| a.lose(t)).collect();
        let sb: Vec<bool> = (0..64).map(|t| b.lose(t)).collect();
        assert_ne!(sa, sb);
    }
}
