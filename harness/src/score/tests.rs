use super::*;
use crate::report::{FlowSummary, LinkInfo, VerdictAccuracy, Verdicts};

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_plan_has_every_run_once_with_its_references() {
    let jobs = plan(&ids(&["newreno", "composite"]), &[1, 2]);
    let mut seen = jobs.clone();
    seen.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    seen.dedup();
    assert_eq!(seen.len(), jobs.len(), "no run twice");
    let has = |class: &str, c: &str, lossless: bool| {
        jobs.iter()
            .filter(|j| j.class == class && j.controller == c && j.lossless == lossless)
            .count()
    };
    // Random loss: both controllers with and without loss, quinn-bbr as the reference.
    assert_eq!(has("random-10M-40ms-1%", "composite", false), 2);
    assert_eq!(has("random-10M-40ms-1%", "composite", true), 2);
    assert_eq!(has("random-10M-40ms-1%", REFERENCE, false), 2);
    assert_eq!(has("random-10M-40ms-1%", REFERENCE, true), 0);
    // Against a peer: the peer's own-kind run once, even when it is also compared.
    assert_eq!(has("congestion-vs-newreno", "newreno", false), 2);
    assert_eq!(has("congestion-vs-cubic", "quinn-cubic", false), 2);
    assert_eq!(has("congestion-four", "quinn-cubic", false), 0);
    // Per seed: on a random-loss class each controller with and without loss, and quinn-bbr;
    // against a peer each controller, and the peer unless it is one of them; among flows each.
    let listed = ["newreno", "composite"];
    let per_seed: usize = CLASSES
        .iter()
        .map(|c| match c.flows {
            Flows::Alone if c.is_random_loss() => 2 * 2 + 1,
            Flows::Alone | Flows::Among { .. } => 2,
            Flows::Against { peer } => 2 + usize::from(!listed.contains(&peer)),
        })
        .sum();
    assert_eq!(jobs.len(), per_seed * 2);
    for (i, j) in jobs.iter().enumerate() {
        assert!(j.scenario().is_ok(), "{}", j.dir_name(i, jobs.len()));
    }
}

fn summary(goodputs: &[f64], acc: Option<VerdictAccuracy>) -> Summary {
    Summary {
        scenario: "s".into(),
        link: LinkInfo {
            kind: "sim".into(),
            engine: "e".into(),
        },
        duration_s: 10.0,
        seed: 1,
        flows: goodputs
            .iter()
            .enumerate()
            .map(|(i, &g)| FlowSummary {
                flow: i,
                controller: "c".into(),
                bytes_delivered: 1,
                packets_delivered: 1,
                goodput_bps: g,
                start_s: 0.0,
                completion_time_s: None,
                lost_packets: 0,
                congestion_events: 0,
                verdicts: Verdicts::default(),
                verified: true,
                flow_control_limited: false,
            })
            .collect(),
        links: vec![],
        drops: None,
        verdict_accuracy: acc,
        delay_signals: None,
    }
}

#[test]
fn figures_follow_their_definitions() {
    let controllers = ids(&["newreno", "fast"]);
    let seeds = [1, 2];
    let jobs = plan(&controllers, &seeds);
    // Synthetic outcomes: `fast` gets 9 Mbit/s with loss, 10 without; quinn-bbr 6;
    // newreno 3 with loss, 10 without. Pairs: flow 0 gets 6, flow 1 4 (against newreno,
    // newreno-vs-newreno gives flow 1 5). Seed 2 of fast on the 2 Mbit/s class fails.
    let outcomes: Vec<Outcome> = jobs
        .iter()
        .map(|j| {
            let class = j.class().unwrap();
            if j.controller == "fast" && j.seed == 2 && class.id == "random-2M-200ms-3%" {
                return Err("simulated failure".into());
            }
            let acc = VerdictAccuracy {
                random_as_random: 3,
                random_as_congestion: 1,
                congestion_as_congestion: 9,
                congestion_as_random: 1,
                spurious: 0,
            };
            Ok(match class.flows {
                Flows::Alone => {
                    let g = match (j.controller.as_str(), j.lossless) {
                        (_, true) => 10e6,
                        ("fast", false) => 9e6,
                        ("newreno", false) => 3e6,
                        _ => 6e6,
                    };
                    summary(&[g], Some(acc))
                }
                Flows::Against { .. } if j.controller == "fast" => summary(&[6e6, 4e6], Some(acc)),
                Flows::Against { .. } => summary(&[5e6, 5e6], Some(acc)),
                Flows::Among { .. } => summary(&[1e6, 1e6, 1e6, 1e6], Some(acc)),
            })
        })
        .collect();
    let board = Scoreboard::of(&controllers, &seeds, &jobs, &outcomes);
    let get = |c: &str, class: &str, f: &str| *board.get(c, class, f).unwrap();
    // 9 / (10 x 0.99)
    let e = get("fast", "random-10M-40ms-1%", "efficiency");
    assert_eq!(e.n, 2);
    assert!((e.mean - 9.0 / 9.9).abs() < 1e-12);
    assert_eq!(get("fast", "random-2M-200ms-3%", "efficiency").n, 1);
    assert!((get("fast", "random-10M-40ms-1%", "vs_quinn_bbr").mean - 1.5).abs() < 1e-12);
    assert!((get("fast", "random-10M-40ms-1%", "random_as_random").mean - 0.75).abs() < 1e-12);
    assert!((get("fast", "congestion-vs-newreno", "share").mean - 0.6).abs() < 1e-12);
    assert!((get("fast", "congestion-vs-newreno", "peer_kept").mean - 0.8).abs() < 1e-12);
    assert!((get("fast", "congestion-vs-newreno", "harm").mean - 0.2).abs() < 1e-12);
    assert!((get("fast", "mixed-vs-newreno", "ratio_to_peer").mean - 1.5).abs() < 1e-12);
    assert_eq!(get("fast", "congestion-four", "jain").mean, 1.0);
    assert!((get("fast", "congestion-four", "congestion_as_congestion").mean - 0.9).abs() < 1e-12);
    // Pooled over the random classes: seed 2 lacks one class, so only seed 1 counts.
    assert_eq!(get("fast", POOLED_RANDOM, "efficiency").n, 1);
    assert_eq!(get("newreno", POOLED_RANDOM, "efficiency").n, 2);
    // The synthetic summaries have no links, so no queueing delay: no value, shown as n/a.
    assert!(board
        .get("fast", POOLED_RANDOM, "queue_delay_p95_s")
        .is_none());
    // The run and its lossless reference.
    assert_eq!(board.failures.len(), 2);
    assert!(board.failures[0].1.contains("simulated failure"));
    let table = board.table().render();
    assert!(
        table.lines().count() == 3 && table.contains("n/a"),
        "{table}"
    );
    assert!(board.footer().contains("failed: "));
    let csv = board.csv();
    assert!(csv
        .rows
        .iter()
        .any(|r| r[0] == "fast" && r[1] == "congestion-four" && r[2] == "jain" && r[3] == "2"));
}

#[test]
fn queueing_delay_comes_from_the_bottlenecks_summary() {
    let mut s = summary(&[1e6], None);
    assert_eq!(queue_p95(&s), None);
    s.links = vec![serde_json::from_value(serde_json::json!({
        "name": "bottleneck", "rate_bps": 10_000_000u64, "delay_s": 0.02, "queue_packets": 34,
        "loss": "none", "engine": "simulator",
        "queue_delay": { "mean_s": 0.01, "p95_s": 0.03 }
    }))
    .unwrap()];
    assert_eq!(queue_p95(&s), Some(0.03));
}
