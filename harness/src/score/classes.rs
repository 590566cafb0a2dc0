//! The scoreboard's matrix of path classes: one row per class in [`CLASSES`], so a new class is
//! one more row, with any further link keys (ECN marking, CoDel) in `link_extra`.
//!
//! The classes are the controller benchmark's paths, and the behaviour tests run them too. The
//! durations are short, so that ten seeds of every default
//! controller finish in minutes on two cores: 10 s for one flow on a random-loss path (about 25
//! to 250 round trips after slow start), 20 s for flows that share a bottleneck (long enough for
//! NewReno pairs to converge from their slow-start overshoot on a 40 ms path).

use std::fmt::Write as _;

/// The bottleneck's random loss model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Loss {
    None,
    /// Every packet lost with probability `rate`.
    Bernoulli {
        rate: f64,
    },
    /// Gilbert-Elliott with every packet of the bad state lost: good -> bad with `p`, bad -> good
    /// with `r`; mean loss `p / (p + r)`, mean burst `1 / r` packets.
    GilbertElliott {
        p: f64,
        r: f64,
    },
}

impl Loss {
    /// The long-run fraction of packets the model drops.
    pub fn mean_rate(self) -> f64 {
        match self {
            Loss::None => 0.0,
            Loss::Bernoulli { rate } => rate,
            Loss::GilbertElliott { p, r } => p / (p + r),
        }
    }

    fn toml(self) -> Option<String> {
        match self {
            Loss::None => None,
            Loss::Bernoulli { rate } => Some(format!("{{ model = \"bernoulli\", rate = {rate} }}")),
            Loss::GilbertElliott { p, r } => Some(format!(
                "{{ model = \"gilbert-elliott\", p = {p}, r = {r} }}"
            )),
        }
    }
}

/// Who shares the bottleneck with the controller under test, and so what the class measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Flows {
    /// One flow alone: efficiency against the same path without loss.
    Alone,
    /// One flow of the controller and one of `peer`: its share and the harm to the peer.
    Against { peer: &'static str },
    /// `n` flows of the controller: Jain's fairness index among them.
    Among { n: u32 },
}

/// One row of the matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathClass {
    /// Short id: the CSV's `class` column and the heatmap's column label.
    pub id: &'static str,
    /// A few words for the printed table's column headers.
    pub label: &'static str,
    pub description: &'static str,
    pub rate_mbit: f64,
    /// One-way propagation delay of the bottleneck (the RTT is twice this plus serialisation).
    pub delay_ms: u32,
    pub queue_packets: u32,
    pub loss: Loss,
    pub flows: Flows,
    pub duration_s: u32,
    /// Further keys of the bottleneck's `[[link]]` table (e.g. `ecn = { threshold = 20 }` once
    /// the link model has it), one per line.
    pub link_extra: &'static str,
}

impl PathClass {
    /// A random-loss class: one flow alone, efficiency measured.
    pub fn is_random_loss(&self) -> bool {
        self.flows == Flows::Alone && self.loss != Loss::None
    }

    /// A class with no random loss: every loss is the queue's.
    pub fn is_congestion_only(&self) -> bool {
        self.loss == Loss::None
    }

    /// The class as a scenario whose flow 0 runs `controller`; `lossless` drops the random loss
    /// (the efficiency reference). Seeds come from `seed`.
    pub fn scenario_toml(&self, controller: &str, seed: u64, lossless: bool) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "name = \"{}\"", self.id);
        let _ = writeln!(t, "description = \"{}\"", self.description);
        let _ = writeln!(t, "duration = \"{}s\"", self.duration_s);
        let _ = writeln!(t, "seed = {seed}");
        let _ = writeln!(t, "\n[[link]]\nname = \"bottleneck\"");
        let _ = writeln!(t, "rate = \"{}Mbit\"", self.rate_mbit);
        let _ = writeln!(t, "delay = \"{}ms\"", self.delay_ms);
        let _ = writeln!(t, "queue = {}", self.queue_packets);
        if let Some(loss) = self.loss.toml().filter(|_| !lossless) {
            let _ = writeln!(t, "loss = {loss}");
        }
        for line in self.link_extra.lines().filter(|l| !l.trim().is_empty()) {
            let _ = writeln!(t, "{}", line.trim());
        }
        let flow = |t: &mut String, id: &str, count: u32| {
            let _ = writeln!(
                t,
                "\n[[flow]]\ncontroller = \"{id}\"\npath = [\"bottleneck\"]\ncount = {count}"
            );
        };
        match self.flows {
            Flows::Alone => flow(&mut t, controller, 1),
            Flows::Against { peer } => {
                flow(&mut t, controller, 1);
                flow(&mut t, peer, 1);
            }
            Flows::Among { n } => flow(&mut t, controller, n),
        }
        t
    }
}

const NO_EXTRA: &str = "";

/// The matrix. Queues are at least one bandwidth-delay product (BDP = rate x RTT / 1500 bytes).
pub const CLASSES: &[PathClass] = &[
    PathClass {
        id: "random-10M-40ms-1%",
        label: "10M 40ms 1%",
        description: "one flow, 10 Mbit/s, 40 ms RTT, 1 % Bernoulli loss, queue 40 (1.2 BDP)",
        rate_mbit: 10.0,
        delay_ms: 20,
        queue_packets: 40,
        loss: Loss::Bernoulli { rate: 0.01 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: NO_EXTRA,
    },
    PathClass {
        id: "random-20M-60ms-0.5%",
        label: "20M 60ms 0.5%",
        description: "one flow, 20 Mbit/s, 60 ms RTT, 0.5 % Bernoulli loss, queue 150 (1.5 BDP)",
        rate_mbit: 20.0,
        delay_ms: 30,
        queue_packets: 150,
        loss: Loss::Bernoulli { rate: 0.005 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: NO_EXTRA,
    },
    PathClass {
        id: "random-100M-20ms-0.1%",
        label: "100M 20ms 0.1%",
        description: "one flow, 100 Mbit/s, 20 ms RTT, 0.1 % Bernoulli loss, queue 170 (1 BDP)",
        rate_mbit: 100.0,
        delay_ms: 10,
        queue_packets: 170,
        loss: Loss::Bernoulli { rate: 0.001 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: NO_EXTRA,
    },
    PathClass {
        id: "random-2M-200ms-3%",
        label: "2M 200ms 3%",
        description: "one flow, 2 Mbit/s, 200 ms RTT, 3 % Bernoulli loss, queue 40 (1.2 BDP)",
        rate_mbit: 2.0,
        delay_ms: 100,
        queue_packets: 40,
        loss: Loss::Bernoulli { rate: 0.03 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: NO_EXTRA,
    },
    PathClass {
        id: "random-ge-20M-60ms-1%",
        label: "GE 20M 60ms 1%",
        description: "one flow, 20 Mbit/s, 60 ms RTT, Gilbert-Elliott loss, 1 % mean in bursts \
                      of 4, queue 150 (1.5 BDP)",
        rate_mbit: 20.0,
        delay_ms: 30,
        queue_packets: 150,
        loss: Loss::GilbertElliott {
            p: 0.002525,
            r: 0.25,
        },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: NO_EXTRA,
    },
    PathClass {
        id: "ecn-20M-60ms-0.5%",
        label: "ECN 20M 60ms 0.5%",
        description: "one flow, 20 Mbit/s, 60 ms RTT, 0.5 % Bernoulli loss, ECN step marking at \
                      20 packets, queue 150 (1.5 BDP)",
        rate_mbit: 20.0,
        delay_ms: 30,
        queue_packets: 150,
        loss: Loss::Bernoulli { rate: 0.005 },
        flows: Flows::Alone,
        duration_s: 10,
        link_extra: "ecn = { threshold = 20 }",
    },
    PathClass {
        id: "congestion-vs-newreno",
        label: "vs newreno",
        description: "against one newreno flow, 10 Mbit/s, 40 ms RTT, 1 BDP drop-tail queue, \
                      no random loss",
        rate_mbit: 10.0,
        delay_ms: 20,
        queue_packets: 34,
        loss: Loss::None,
        flows: Flows::Against { peer: "newreno" },
        duration_s: 20,
        link_extra: NO_EXTRA,
    },
    PathClass {
        id: "congestion-vs-cubic",
        label: "vs cubic",
        description: "against one quinn-cubic flow, 10 Mbit/s, 40 ms RTT, 1 BDP drop-tail \
                      queue, no random loss",
        rate_mbit: 10.0,
        delay_ms: 20,
        queue_packets: 34,
        loss: Loss::None,
        flows: Flows::Against {
            peer: "quinn-cubic",
        },
        duration_s: 20,
        link_extra: NO_EXTRA,
    },
    PathClass {
        id: "congestion-four",
        label: "four flows",
        description: "four flows of the controller, 10 Mbit/s, 40 ms RTT, 1 BDP drop-tail \
                      queue, no random loss",
        rate_mbit: 10.0,
        delay_ms: 20,
        queue_packets: 34,
        loss: Loss::None,
        flows: Flows::Among { n: 4 },
        duration_s: 20,
        link_extra: NO_EXTRA,
    },
    PathClass {
        id: "mixed-vs-newreno",
        label: "mixed vs newreno",
        description: "against one newreno flow, 10 Mbit/s, 40 ms RTT, 1 BDP drop-tail queue, \
                      0.5 % Bernoulli loss",
        rate_mbit: 10.0,
        delay_ms: 20,
        queue_packets: 34,
        loss: Loss::Bernoulli { rate: 0.005 },
        flows: Flows::Against { peer: "newreno" },
        duration_s: 20,
        link_extra: NO_EXTRA,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    #[test]
    fn every_class_is_a_valid_scenario_with_and_without_loss() {
        for c in CLASSES {
            for lossless in [false, true] {
                let text = c.scenario_toml("newreno", 3, lossless);
                let s = Scenario::from_toml(&text, c.id, &[])
                    .unwrap_or_else(|e| panic!("{}: {e}\n{text}", c.id));
                assert_eq!(s.seed, 3);
                assert_eq!(s.flows[0].controller, "newreno");
                assert_eq!(text.contains("loss ="), !lossless && c.loss != Loss::None);
            }
        }
    }

    #[test]
    fn ids_are_unique_and_queues_hold_a_bdp() {
        for (i, c) in CLASSES.iter().enumerate() {
            assert!(CLASSES[..i].iter().all(|d| d.id != c.id), "{}", c.id);
            let rtt_s = 2.0 * c.delay_ms as f64 / 1000.0;
            let bdp = c.rate_mbit * 1e6 * rtt_s / 12_000.0;
            assert!(c.queue_packets as f64 >= bdp.floor(), "{}: bdp {bdp}", c.id);
        }
        let ge = CLASSES
            .iter()
            .find(|c| c.id.starts_with("random-ge"))
            .unwrap();
        assert!((ge.loss.mean_rate() - 0.01).abs() < 1e-4);
    }
}
