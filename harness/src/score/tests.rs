use super::classes::Family;
use super::*;
use crate::report::{
    Drops, FlowQueue, FlowSummary, LinkInfo, QueueDelay, VerdictAccuracy, Verdicts,
};

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
    // Against a peer with random loss, each controller without it too (the link's efficiency).
    // Alone on an AQM, newreno is the drops reference, and it is listed here.
    assert_eq!(has("mixed-vs-newreno", "composite", true), 2);
    assert_eq!(has("mixed-vs-newreno", "newreno", true), 2);
    assert_eq!(has("congestion-vs-newreno", "composite", true), 0);
    // A lying class's reference is its honest twin's run: no peer against its own kind.
    assert_eq!(has("lie-queue-gap-codel-vs-cubic", "quinn-cubic", false), 0);
    assert_eq!(has("lie-queue-gap-codel-vs-cubic", "composite", false), 2);
    let managed = CLASSES
        .iter()
        .find(|c| c.is_random_loss() && c.is_managed())
        .unwrap();
    assert_eq!(has(managed.id, DROPS_REFERENCE, false), 2);
    let listed = ["newreno", "composite"];
    let per_seed: usize = CLASSES
        .iter()
        .map(|c| match c.flows {
            Flows::Alone if c.is_random_loss() => 2 * 2 + 1,
            Flows::Alone | Flows::Among { .. } | Flows::Visited { .. } => 2,
            Flows::Against { peer } => {
                2 * (1 + usize::from(!c.is_congestion_only()))
                    + usize::from(!listed.contains(&peer) && c.lie.is_none())
            }
        })
        .sum();
    assert_eq!(jobs.len(), per_seed * 2);
    let traces = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces");
    for (i, j) in jobs.iter().enumerate() {
        let traced = j.class().unwrap().trace_path(&traces);
        if traced.is_some_and(|f| !f.exists()) {
            continue;
        }
        assert!(
            j.scenario_in(&traces).is_ok(),
            "{}",
            j.dir_name(i, jobs.len())
        );
    }
    // A noq peer has no lying classes: the lie rewrites a quinn receiver's ACK frames.
    let with_bbr3 = plan(&ids(&["noq-bbr3"]), &[1]);
    assert!(with_bbr3
        .iter()
        .all(|j| j.controller != "noq-bbr3" || !j.class.starts_with("lie-")));
    assert!(with_bbr3.iter().any(|j| j.controller == "noq-bbr3"));
    // Without its newreno reference listed, an AQM class alone plans it once.
    let bbr_only = plan(&ids(&["quinn-bbr"]), &[1]);
    let newreno_alone = bbr_only
        .iter()
        .filter(|j| j.class == managed.id && j.controller == DROPS_REFERENCE)
        .count();
    assert_eq!(newreno_alone, 1);
}

#[test]
fn a_class_whose_trace_is_absent_fails_naming_the_file_and_the_variable() {
    let lte = CLASSES.iter().find(|c| c.trace.is_some()).unwrap();
    let job = Job {
        class: lte.id.into(),
        controller: "newreno".into(),
        lossless: false,
        seed: 1,
    };
    let e = job
        .scenario_in(std::path::Path::new("/no/such/folder"))
        .unwrap_err()
        .to_string();
    assert!(e.contains(lte.id), "{e}");
    assert!(
        e.contains(&format!("/no/such/folder/{}", lte.trace.unwrap())),
        "{e}"
    );
    assert!(e.contains(classes::TRACES_ENV), "{e}");
}

fn summary(goodputs: &[f64], acc: Option<VerdictAccuracy>) -> Summary {
    Summary {
        receiver_lies: Vec::new(),
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
                outcome: crate::report::Outcome::Unbounded,
                bytes_asked: None,
                bytes_delivered: 1,
                bytes_verified: 1,
                packets_delivered: 1,
                goodput_bps: g,
                start_s: 0.0,
                completion_time_s: None,
                lost_packets: 0,
                congestion_events: 0,
                verdicts: Verdicts::default(),
                verdict_accuracy: None,
                verified: true,
                flow_control_limited: false,
                queue: None,
                receiver_closed: None,
                receiver_acks: None,
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
                Flows::Visited { .. } => summary(&[6e6, 4e6], Some(acc)),
            })
        })
        .collect();
    let board = Scoreboard::of(&controllers, &seeds, &jobs, &outcomes);
    let get = |c: &str, class: &str, f: Figure| *board.get(c, class, f).unwrap();
    // 9 / (10 x 0.99)
    let e = get("fast", "random-10M-40ms-1%", Figure::Efficiency);
    assert_eq!(e.n, 2);
    assert!((e.mean - 9.0 / 9.9).abs() < 1e-12);
    assert_eq!(get("fast", "random-2M-200ms-3%", Figure::Efficiency).n, 1);
    assert!((get("fast", "random-10M-40ms-1%", Figure::VsQuinnBbr).mean - 1.5).abs() < 1e-12);
    assert!((get("fast", "random-10M-40ms-1%", Figure::RandomAsRandom).mean - 0.75).abs() < 1e-12);
    assert!((get("fast", "congestion-vs-newreno", Figure::Share).mean - 0.6).abs() < 1e-12);
    assert!((get("fast", "congestion-vs-newreno", Figure::PeerKept).mean - 0.8).abs() < 1e-12);
    assert!((get("fast", "congestion-vs-newreno", Figure::Harm).mean - 0.2).abs() < 1e-12);
    assert!((get("fast", "mixed-vs-newreno", Figure::RatioToPeer).mean - 1.5).abs() < 1e-12);
    assert_eq!(get("fast", "congestion-four", Figure::Jain).mean, 1.0);
    assert!(
        (get("fast", "congestion-four", Figure::CongestionAsCongestion).mean - 0.9).abs() < 1e-12
    );
    // Pooled over the random classes: seed 2 lacks one class, so only seed 1 counts.
    assert_eq!(get("fast", POOLED_RANDOM, Figure::Efficiency).n, 1);
    assert_eq!(get("newreno", POOLED_RANDOM, Figure::Efficiency).n, 2);
    // The synthetic summaries have no links, so no queueing delay: no value, shown as n/a.
    assert!(board
        .get("fast", POOLED_RANDOM, Figure::QueueDelayP95S)
        .is_none());
    // The run and its lossless reference.
    assert_eq!(board.failures.len(), 2);
    assert!(board.failures[0].1.contains("simulated failure"));
    let table = board.table(Family::RandomLoss).render();
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
    assert_eq!(figure::queue_p95(&s), None);
    s.links = vec![serde_json::from_value(serde_json::json!({
        "name": "bottleneck", "rate_bps": 10_000_000u64, "delay_s": 0.02, "queue_packets": 34,
        "loss": "none", "engine": "simulator",
        "queue_delay": { "mean_s": 0.01, "p95_s": 0.03 }
    }))
    .unwrap()];
    assert_eq!(figure::queue_p95(&s), Some(0.03));
}

/// A run with the bottleneck's queue drops (ground truth) and p95 queueing delay.
fn queued(goodputs: &[f64], drops: u64, p95_s: f64) -> Summary {
    let mut s = summary(goodputs, None);
    s.drops = Some(Drops {
        queue: drops,
        channel: 0,
    });
    s.links = vec![serde_json::from_value(serde_json::json!({
        "name": "bottleneck", "rate_bps": 20_000_000u64, "delay_s": 0.02, "queue_packets": 1000,
        "loss": "none", "engine": "simulator",
        "queue_delay": { "mean_s": p95_s / 2.0, "p95_s": p95_s }
    }))
    .unwrap()];
    s
}

fn class(id: &str) -> &'static PathClass {
    CLASSES.iter().find(|c| c.id == id).unwrap()
}

#[test]
fn queue_figures_pair_each_run_with_its_reference_on_the_same_seed() {
    let controllers = ids(&["fast"]);
    let seeds = [1, 2];
    let jobs = plan(&controllers, &seeds);
    // `fast` drops 30 packets per seed with a 20 ms p95 wherever it runs; against a peer the
    // peer's own-kind run drops 10 on seed 1 and 15 on seed 2 (p95 10 ms and 40 ms), except on
    // codel-vs-newreno, where that run fails on seed 2. Alone on CoDel, newreno drops 5 on seed
    // 1 and none on seed 2. Lossless pairs get 9.95 Mbit/s between them.
    let outcomes: Vec<Outcome> = jobs
        .iter()
        .map(|j| {
            let c = j.class().unwrap();
            let reference = j.controller != "fast";
            match (c.flows, reference, j.seed) {
                (Flows::Against { .. }, true, 2) if c.id == "codel-vs-newreno" => {
                    Err("simulated failure".into())
                }
                (Flows::Against { .. }, true, seed) => {
                    let (drops, p95) = if seed == 1 { (10, 0.01) } else { (15, 0.04) };
                    Ok(queued(&[5e6, 5e6], drops, p95))
                }
                (Flows::Against { .. }, false, _) if j.lossless => {
                    Ok(queued(&[5e6, 4.95e6], 0, 0.02))
                }
                (Flows::Against { .. }, false, _) => Ok(queued(&[6e6, 4e6], 30, 0.02)),
                (_, true, seed) if j.controller == DROPS_REFERENCE => {
                    Ok(queued(&[5e6], if seed == 1 { 5 } else { 0 }, 0.01))
                }
                _ => Ok(queued(&[9e6], 30, 0.02)),
            }
        })
        .collect();
    let board = Scoreboard::of(&controllers, &seeds, &jobs, &outcomes);
    let get = |class: &str, f: Figure| board.get("fast", class, f).copied();
    // Against a drop-tail peer: 30 / 10 and 30 / 15 on the same seeds, not 30 / 12.5.
    let drops = get("codel-vs-cubic", Figure::QueueDropsVsReference).unwrap();
    assert_eq!((drops.n, drops.mean), (2, 2.5));
    let p95 = get("codel-vs-cubic", Figure::QueueP95VsReference).unwrap();
    assert_eq!((p95.n, p95.mean), (2, 1.25));
    // The failed reference leaves seed 2 out.
    let drops = get("codel-vs-newreno", Figure::QueueDropsVsReference).unwrap();
    assert_eq!((drops.n, drops.mean), (1, 3.0));
    // Alone on CoDel: against newreno alone; seed 2's reference dropped nothing.
    let drops = get("codel-20M-40ms-0.5%", Figure::QueueDropsVsReference).unwrap();
    assert_eq!((drops.n, drops.mean), (1, 6.0));
    // Drop-tail classes alone have no drops reference.
    assert!(!Figure::of(class("random-10M-40ms-1%")).contains(&Figure::QueueDropsVsReference));
    // 20 ms over max(10 ms, RTT / 4): 40 ms RTT gives 10 ms, 200 ms RTT 50 ms.
    assert_eq!(
        get("random-10M-40ms-1%", Figure::QueueP95VsBudget)
            .unwrap()
            .mean,
        2.0
    );
    assert!(
        (get("random-2M-200ms-3%", Figure::QueueP95VsBudget)
            .unwrap()
            .mean
            - 0.4)
            .abs()
            < 1e-12
    );
    assert_eq!(get(POOLED_RANDOM, Figure::QueueP95VsBudget).unwrap().n, 2);
    // Both flows' 10 Mbit/s over the lossless pair's 9.95 x (1 - 0.005).
    let eff = get("mixed-vs-newreno", Figure::LinkEfficiency).unwrap();
    assert!((eff.mean - 10.0 / (9.95 * 0.995)).abs() < 1e-12, "{eff:?}");
    assert!(get("congestion-vs-newreno", Figure::LinkEfficiency).is_none());
    assert!(!Figure::of(class("congestion-vs-newreno")).contains(&Figure::LinkEfficiency));
}

#[test]
fn queue_drops_prefer_the_bottlenecks_own_count() {
    let s = queued(&[1e6], 7, 0.01);
    assert_eq!(figure::queue_drops(&s), Some(7.0));
    let mut v = serde_json::to_value(&s).unwrap();
    v["links"][0]["queue_drops"] = serde_json::json!(4);
    assert_eq!(figure::queue_drops_in(&v), Some(4.0));
    v["drops"] = serde_json::Value::Null;
    v["links"][0]["queue_drops"] = serde_json::Value::Null;
    assert_eq!(figure::queue_drops_in(&v), None);
}

#[test]
fn every_figure_has_its_own_name() {
    let all: Vec<Figure> = CLASSES.iter().flat_map(Figure::of).collect();
    let mut names: Vec<&str> = all.iter().map(|f| f.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 29, "{names:?}");
    assert_eq!(
        serde_json::to_value(Figure::QueueDelayP95S).unwrap(),
        "queue_delay_p95_s"
    );
}

#[test]
fn fair_queueing_judges_a_flow_beside_the_peer_flow_in_the_same_run() {
    let class = class("fq-codel-vs-newreno");
    assert!(class.is_fair_queued() && !self::class("codel-vs-newreno").is_fair_queued());
    let job = Job {
        class: class.id.to_string(),
        controller: "fast".into(),
        lossless: false,
        seed: 1,
    };
    // The controller's flow lost 12 packets and waited 6 ms at p95; the newreno flow beside it
    // lost 4 and waited 2 ms.
    let mut run = queued(&[5e6, 5e6], 16, 0.004);
    for (flow, (drops, p95_s)) in run.flows.iter_mut().zip([(12, 0.006), (4, 0.002)]) {
        flow.queue = Some(FlowQueue {
            drops,
            delay: Some(QueueDelay {
                mean_s: p95_s / 2.0,
                p95_s,
            }),
        });
    }
    let jobs = [job];
    let outcomes = [Ok(run)];
    let v = figure::SeedValues::of(class, "fast", 1, &figure::Runs::new(&jobs, &outcomes, &[]))
        .unwrap();
    assert_eq!(v.get(Figure::OwnDropsVsPeer), Some(3.0));
    assert!((v.get(Figure::OwnQueueP95VsPeer).unwrap() - 3.0).abs() < 1e-12);
    assert!(Figure::of(class).contains(&Figure::OwnDropsVsPeer));
    assert!(!Figure::of(self::class("codel-vs-newreno")).contains(&Figure::OwnDropsVsPeer));
}

#[test]
fn a_reference_whose_receiver_closed_is_no_reference() {
    let class = class("random-1G-40ms-0.01%");
    let job = |lossless| Job {
        class: class.id.to_string(),
        controller: "fast".into(),
        lossless,
        seed: 1,
    };
    let mut lossless = summary(&[1e8], None);
    lossless.flows[0].receiver_closed = Some("too many gaps in stream buffer".into());
    let jobs = [job(false), job(true)];
    let outcomes = [Ok(summary(&[9e8], None)), Ok(lossless)];
    let runs = figure::Runs::new(&jobs, &outcomes, &[]);
    let v = figure::SeedValues::of(class, "fast", 1, &runs).unwrap();
    assert_eq!(v.get(Figure::GoodputBps), Some(9e8));
    assert_eq!(v.get(Figure::Efficiency), None);
    assert_eq!(v.get(Figure::ReceiverClosed), Some(0.0));
    // The run itself keeps its figures, and says its receiver closed.
    let outcomes = [outcomes[1].clone(), Ok(summary(&[9e8], None))];
    let runs = figure::Runs::new(&jobs, &outcomes, &[]);
    let v = figure::SeedValues::of(class, "fast", 1, &runs).unwrap();
    assert_eq!(v.get(Figure::ReceiverClosed), Some(1.0));
}

#[test]
fn a_visited_class_scores_the_share_beside_the_peer_and_the_queue_after_it() {
    let class = class("visit-5bdp-vs-cubic");
    let Flows::Visited {
        peer,
        arrives_s,
        bytes,
    } = class.flows
    else {
        panic!("{class:?}")
    };
    let text = class.scenario_toml("fast", 1, false);
    let peer_flow = text.split("[[flow]]").nth(2).unwrap();
    assert!(
        peer_flow.contains(&format!("controller = \"{peer}\"")),
        "{text}"
    );
    assert!(
        peer_flow.contains(&format!("start = \"{arrives_s}s\"")),
        "{text}"
    );
    assert!(
        peer_flow.contains(&format!("bytes = \"{bytes}\"")),
        "{text}"
    );
    let job = Job {
        class: class.id.to_string(),
        controller: "fast".into(),
        lossless: false,
        seed: 1,
    };
    // While the peer sent its 3 MB, flow 0 delivered 1 MB; once it had gone, flow 0's RTT sat
    // 5 ms above its lowest at p95, half the 10 ms budget of a 40 ms path.
    let mut run = summary(&[8e6, 4e6], None);
    run.flows[1].bytes_delivered = 3_000_000;
    let measures = paths::Measures {
        own_bytes_beside_peer: Some(1_000_000),
        queue_after_peer_p95_s: Some(0.005),
    };
    let (jobs, outcomes, measures) = ([job], [Ok(run)], [measures]);
    let runs = figure::Runs::new(&jobs, &outcomes, &measures);
    let v = figure::SeedValues::of(class, "fast", 1, &runs).unwrap();
    assert_eq!(v.get(Figure::ShareBesidePeer), Some(0.25));
    assert_eq!(v.get(Figure::QueueAfterPeerP95S), Some(0.005));
    assert!((v.get(Figure::QueueAfterPeerVsBudget).unwrap() - 0.5).abs() < 1e-12);
    assert_eq!(headline_figure(class), Figure::QueueAfterPeerVsBudget);
    // Without its measures (a run of another class), the run's own figures stand alone.
    let runs = figure::Runs::new(&jobs, &outcomes, &[]);
    let v = figure::SeedValues::of(class, "fast", 1, &runs).unwrap();
    assert_eq!(v.get(Figure::GoodputBps), Some(8e6));
    assert_eq!(v.get(Figure::ShareBesidePeer), None);
}
