//! The conditions of a repeated sweep (`sweep --runs N`): the runs of one condition (varied
//! values and controller) over seeds `seed .. seed + N - 1`, summarised as n, mean, standard
//! deviation and 95 % interval of every figure, and the paired goodput ratio to a baseline
//! controller on the same seeds.

use serde::Serialize;

use super::execute::FIGURES;
use super::{Aggregate, Record};
use crate::output::table::TextTable;
use crate::stats::{paired_ratios, Estimate};

/// A run of a condition that failed: its seed and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedRun {
    pub seed: Option<u64>,
    pub error: String,
}

/// One figure over a condition's successful runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FigureEstimate {
    pub name: &'static str,
    /// `None` when no successful run has this figure.
    pub estimate: Option<Estimate>,
}

/// One flow of a condition over its successful runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowEstimate {
    /// The flow's index after `count` expansion.
    pub flow: usize,
    pub goodput_bps: Option<Estimate>,
    /// The flow's share of its run's total goodput.
    pub share: Option<Estimate>,
}

impl FlowEstimate {
    /// Flow `flow`'s goodput and share over `runs`.
    fn of(flow: usize, runs: &[&Aggregate]) -> Self {
        FlowEstimate {
            flow,
            goodput_bps: Estimate::of_all(
                runs.iter()
                    .filter_map(|a| a.flow_goodput_bps.get(flow).copied()),
            ),
            share: Estimate::of_all(runs.iter().filter_map(|a| a.share(flow))),
        }
    }
}

/// The repetitions of one condition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    /// One `(key, value)` per `--vary`.
    pub values: Vec<(String, String)>,
    pub controller: String,
    /// Runs planned (successful and failed).
    pub runs: usize,
    /// Runs that failed: counted here, never dropped silently.
    pub failed: Vec<FailedRun>,
    /// Successful runs in which some flow's bytes did not verify.
    pub unverified: usize,
    /// Runs in which some flow's receiver closed the connection before the flow ended.
    pub receiver_closed: usize,
    /// Runs in which some flow did not finish its transfer (`incomplete`, `no_handshake`).
    pub unfinished: usize,
    pub figures: Vec<FigureEstimate>,
    /// Each flow's goodput and share, where the scenario has several flows (empty for one).
    pub flows: Vec<FlowEstimate>,
    /// Per seed `goodput_total / the baseline's goodput_total` on the same seed and values, then
    /// the estimate of those ratios; `None` without `--baseline`.
    pub goodput_ratio: Option<Estimate>,
}

impl Condition {
    pub fn figure(&self, name: &str) -> Option<&Estimate> {
        self.figures
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| f.estimate.as_ref())
    }
}

/// The repeated sweep as `aggregate.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepeatedSweep {
    pub scenario: String,
    pub seeds: Vec<u64>,
    pub baseline: Option<String>,
    pub conditions: Vec<Condition>,
}

/// Groups `records` (in sweep order: repetitions of a condition next to each other) into
/// conditions. With `baseline`, each condition's goodput is paired seed by seed with the
/// baseline controller's run of the same values.
pub fn conditions(records: &[Record], baseline: Option<&str>) -> Vec<Condition> {
    let mut groups: Vec<Vec<&Record>> = Vec::new();
    for r in records {
        match groups.last_mut() {
            Some(g) if g[0].point.same_condition(&r.point) => g.push(r),
            _ => groups.push(vec![r]),
        }
    }
    let goodput_of = |values: &Vec<(String, String)>, controller: &str, seed: Option<u64>| {
        records.iter().find_map(|r| match &r.result {
            Ok(a)
                if r.point.values == *values
                    && r.controller == controller
                    && r.point.seed == seed =>
            {
                Some(a.goodput_total_bps)
            }
            _ => None,
        })
    };
    groups
        .into_iter()
        .map(|g| {
            let ok: Vec<_> = g.iter().filter_map(|r| r.result.as_ref().ok()).collect();
            let failed = g
                .iter()
                .filter_map(|r| {
                    r.result.as_ref().err().map(|e| FailedRun {
                        seed: r.point.seed,
                        error: e.clone(),
                    })
                })
                .collect();
            let all: Vec<[Option<f64>; 12]> = ok.iter().map(|a| a.figures()).collect();
            let figures = FIGURES
                .iter()
                .enumerate()
                .map(|(i, name)| FigureEstimate {
                    name,
                    estimate: Estimate::of_all(all.iter().filter_map(|f| f[i])),
                })
                .collect();
            let goodput_ratio = baseline.and_then(|b| {
                let pairs: Vec<(f64, f64)> = g
                    .iter()
                    .filter_map(|r| {
                        let mine = r.result.as_ref().ok()?.goodput_total_bps;
                        Some((mine, goodput_of(&r.point.values, b, r.point.seed)?))
                    })
                    .collect();
                Estimate::of(&paired_ratios(&pairs))
            });
            Condition {
                values: g[0].point.values.clone(),
                controller: g[0].controller.clone(),
                runs: g.len(),
                failed,
                unverified: ok.iter().filter(|a| !a.verified).count(),
                receiver_closed: ok.iter().filter(|a| a.receiver_closed > 0).count(),
                unfinished: ok.iter().filter(|a| a.unfinished > 0).count(),
                figures,
                flows: flow_estimates(&ok),
                goodput_ratio,
            }
        })
        .collect()
}

/// Each flow's estimates over `runs`, when they have more than one flow.
fn flow_estimates(runs: &[&Aggregate]) -> Vec<FlowEstimate> {
    let flows = runs
        .iter()
        .map(|a| a.flow_goodput_bps.len())
        .max()
        .unwrap_or(0);
    match flows {
        0 | 1 => Vec::new(),
        n => (0..n).map(|i| FlowEstimate::of(i, runs)).collect(),
    }
}

/// The most flows any condition has estimates for.
fn most_flows(conditions: &[Condition]) -> usize {
    conditions.iter().map(|c| c.flows.len()).max().unwrap_or(0)
}

/// `sweep.csv` of a repeated sweep: one row per condition; per figure its n, mean, sd and 95 %
/// interval; the paired goodput ratio to the baseline when there is one; failed runs counted,
/// and their errors (`seed N: message; ...`) in an `errors` column when any failed. Verdict
/// accuracy columns appear when any run has them, a `receiver_closed` count of runs when any
/// run's receiver closed a connection, and an `unfinished` count of runs when any run had a flow
/// that did not finish its transfer.
pub fn csv_table(keys: &[String], conditions: &[Condition], baseline: Option<&str>) -> TextTable {
    let with_accuracy = conditions
        .iter()
        .any(|c| c.figure("random_as_random").is_some());
    let with_errors = conditions.iter().any(|c| !c.failed.is_empty());
    let with_closed = conditions.iter().any(|c| c.receiver_closed > 0);
    let with_unfinished = conditions.iter().any(|c| c.unfinished > 0);
    let shown = |name: &str| with_accuracy || FIGURES[..7].contains(&name);
    let mut headers: Vec<String> = keys.to_vec();
    headers.extend(["controller", "runs", "failed", "unverified"].map(String::from));
    if with_closed {
        headers.push("receiver_closed".into());
    }
    if with_unfinished {
        headers.push("unfinished".into());
    }
    for name in FIGURES.iter().filter(|n| shown(n)) {
        headers.extend(Estimate::COLUMNS.iter().map(|c| format!("{name}_{c}")));
    }
    let flows = most_flows(conditions);
    for i in 0..flows {
        for name in ["goodput_bps", "share"] {
            headers.extend(
                Estimate::COLUMNS
                    .iter()
                    .map(|c| format!("flow{i}_{name}_{c}")),
            );
        }
    }
    if baseline.is_some() {
        headers.push("baseline".into());
        headers.extend(
            Estimate::COLUMNS
                .iter()
                .map(|c| format!("goodput_ratio_{c}")),
        );
    }
    if with_errors {
        headers.push("errors".into());
    }
    let mut t = TextTable::new(headers);
    for c in conditions {
        let mut row: Vec<String> = c.values.iter().map(|(_, v)| v.clone()).collect();
        row.push(c.controller.clone());
        row.push(c.runs.to_string());
        row.push(c.failed.len().to_string());
        row.push(c.unverified.to_string());
        if with_closed {
            row.push(c.receiver_closed.to_string());
        }
        if with_unfinished {
            row.push(c.unfinished.to_string());
        }
        for f in c.figures.iter().filter(|f| shown(f.name)) {
            row.extend(Estimate::cells(f.estimate.as_ref()));
        }
        for i in 0..flows {
            let flow = c.flows.get(i);
            row.extend(Estimate::cells(flow.and_then(|f| f.goodput_bps.as_ref())));
            row.extend(Estimate::cells(flow.and_then(|f| f.share.as_ref())));
        }
        if let Some(b) = baseline {
            row.push(b.to_string());
            row.extend(Estimate::cells(c.goodput_ratio.as_ref()));
        }
        if with_errors {
            row.push(failures_text(&c.failed));
        }
        t.push(row);
    }
    t
}

fn failures_text(failed: &[FailedRun]) -> String {
    failed
        .iter()
        .map(|f| match f.seed {
            Some(s) => format!("seed {s}: {}", f.error),
            None => f.error.clone(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The terminal table of a repeated sweep: means with their 95 % interval (`mean ± half width`),
/// `n` as successful/planned runs, and the paired ratio to the baseline.
pub fn human_table(keys: &[String], conditions: &[Condition], baseline: Option<&str>) -> TextTable {
    let with_accuracy = conditions
        .iter()
        .any(|c| c.figure("random_as_random").is_some());
    let mut headers: Vec<String> = keys.to_vec();
    headers.extend(
        [
            "controller",
            "n",
            "Mbit/s total (95 % CI)",
            "lost",
            "cong. events",
        ]
        .map(String::from),
    );
    let flows = most_flows(conditions);
    for i in 0..flows {
        headers.extend([format!("flow {i} Mbit/s"), format!("flow {i} %")]);
    }
    if with_accuracy {
        headers.extend(["rnd→rnd", "cong→cong"].map(String::from));
    }
    if let Some(b) = baseline {
        headers.push(format!("goodput / {b}"));
    }
    let mut t = TextTable::new(headers);
    let show = |c: &Condition, name: &str, scale: f64, digits: usize| {
        c.figure(name)
            .map(|e| e.display(scale, digits))
            .unwrap_or_else(|| "-".into())
    };
    for c in conditions {
        let mut row: Vec<String> = c.values.iter().map(|(_, v)| v.clone()).collect();
        row.push(c.controller.clone());
        let ok = c.runs - c.failed.len();
        row.push(if c.failed.is_empty() {
            ok.to_string()
        } else {
            format!("{ok}/{} ({} failed)", c.runs, c.failed.len())
        });
        row.push(show(c, "goodput_total_bps", 1e-6, 3));
        let count = |name: &str| {
            c.figure(name)
                .map_or_else(|| "-".into(), |e| e.display_count(1))
        };
        row.push(count("lost_packets"));
        row.push(count("congestion_events"));
        for flow in (0..flows).map(|i| c.flows.get(i)) {
            let goodput = flow.and_then(|f| f.goodput_bps.as_ref());
            let share = flow.and_then(|f| f.share.as_ref());
            row.push(goodput.map_or_else(|| "-".into(), |e| e.display(1e-6, 3)));
            row.push(share.map_or_else(|| "-".into(), |e| e.display(100.0, 1)));
        }
        if with_accuracy {
            row.push(show(c, "random_as_random", 1.0, 1));
            row.push(show(c, "congestion_as_congestion", 1.0, 1));
        }
        if baseline.is_some() {
            row.push(
                c.goodput_ratio
                    .map(|e| e.display(1.0, 3))
                    .unwrap_or_else(|| "-".into()),
            );
        }
        t.push(row);
    }
    t
}

/// Lines naming every failed run, for under the terminal table.
pub fn failure_lines(conditions: &[Condition]) -> String {
    let mut s = String::new();
    for c in conditions.iter().filter(|c| !c.failed.is_empty()) {
        let values: Vec<String> = c.values.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let at = if values.is_empty() {
            String::new()
        } else {
            format!(" at {}", values.join(", "))
        };
        s.push_str(&format!(
            "failed: {}{at}: {}\n",
            c.controller,
            failures_text(&c.failed)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::FlowController;
    use crate::sweep::{expand_with_seeds, Aggregate};

    fn aggregate(goodput: f64) -> Aggregate {
        Aggregate {
            flows: 1,
            flow_goodput_bps: vec![goodput],
            goodput_total_bps: goodput,
            goodput_mean_bps: goodput,
            completion_time_s: None,
            lost_packets: 2,
            congestion_events: 1,
            verdicts_random: 0,
            verdicts_congestion: 1,
            accuracy: None,
            verified: true,
            receiver_closed: 0,
            unfinished: 0,
            delivered_nothing: 0,
        }
    }

    fn records() -> Vec<Record> {
        let ctrls: Vec<FlowController> = vec!["reno".parse().unwrap(), "tahoe".parse().unwrap()];
        // reno (the base): 10, 20, 30 on seeds 1-3; tahoe: 20, 30 (seed 2 failed), 60.
        let goodputs = [
            Ok(10.0),
            Ok(20.0),
            Ok(30.0),
            Ok(20.0),
            Err("boom"),
            Ok(60.0),
        ];
        expand_with_seeds(&[], Some(&ctrls), &[1, 2, 3])
            .into_iter()
            .zip(goodputs)
            .map(|(p, g)| Record {
                controller: p.controller.as_ref().unwrap().id().to_owned(),
                point: p,
                result: g.map(aggregate).map_err(String::from),
            })
            .collect()
    }

    #[test]
    fn conditions_summarise_repetitions_and_count_failures() {
        let c = conditions(&records(), Some("reno"));
        assert_eq!(c.len(), 2);
        let base = &c[0];
        assert_eq!((base.controller.as_str(), base.runs), ("reno", 3));
        let g = base.figure("goodput_total_bps").unwrap();
        assert_eq!((g.n, g.mean, g.sd), (3, 20.0, Some(10.0)));
        let fast = &c[1];
        assert_eq!(fast.runs, 3);
        assert_eq!(
            fast.failed,
            [FailedRun {
                seed: Some(2),
                error: "boom".into()
            }]
        );
        assert_eq!(fast.figure("goodput_total_bps").unwrap().n, 2);
        assert!(fast.figure("completion_time_s").is_none());
        // Paired per seed: 20/10 and 60/30, both 2; the failed seed pairs with nothing.
        let r = fast.goodput_ratio.unwrap();
        assert_eq!((r.n, r.mean, r.sd), (2, 2.0, Some(0.0)));
        assert_eq!(base.goodput_ratio.unwrap().mean, 1.0);
    }

    #[test]
    fn csv_has_estimates_ratio_and_errors() {
        let c = conditions(&records(), Some("reno"));
        let t = csv_table(&[], &c, Some("reno"));
        let col = |h: &str| t.headers.iter().position(|x| x == h).unwrap();
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1][col("failed")], "1");
        assert_eq!(t.rows[1][col("goodput_total_bps_n")], "2");
        assert_eq!(t.rows[1][col("goodput_total_bps_mean")], "40");
        assert_eq!(t.rows[1][col("goodput_ratio_mean")], "2");
        assert_eq!(t.rows[1][col("errors")], "seed 2: boom");
        assert_eq!(t.rows[0][col("goodput_total_bps_sd")], "10");
        assert!(!t.headers.iter().any(|h| h.starts_with("random_as_random")));
        let human = human_table(&[], &c, Some("reno")).render();
        assert!(human.contains("2/3 (1 failed)"), "{human}");
        assert!(failure_lines(&c).contains("failed: tahoe: seed 2: boom"));
    }
}

#[cfg(test)]
mod receiver_closed_tests {
    use super::*;
    use crate::scenario::FlowController;
    use crate::sweep::{expand_with_seeds, table, Aggregate};

    fn records(closed: usize) -> Vec<Record> {
        let ctrls: Vec<FlowController> = vec!["reno".parse().unwrap()];
        expand_with_seeds(&[], Some(&ctrls), &[1, 2])
            .into_iter()
            .enumerate()
            .map(|(i, p)| Record {
                controller: "reno".into(),
                point: p,
                result: Ok(Aggregate {
                    flows: 1,
                    flow_goodput_bps: vec![1e6],
                    goodput_total_bps: 1e6,
                    goodput_mean_bps: 1e6,
                    completion_time_s: None,
                    lost_packets: 0,
                    congestion_events: 0,
                    verdicts_random: 0,
                    verdicts_congestion: 0,
                    accuracy: None,
                    verified: true,
                    receiver_closed: if i == 0 { closed } else { 0 },
                    unfinished: 0,
                    delivered_nothing: 0,
                }),
            })
            .collect()
    }

    #[test]
    fn a_receiver_s_close_gets_a_column_only_where_one_happened() {
        let t = table(&[], &records(1), false);
        let col = t
            .headers
            .iter()
            .position(|h| h == "receiver_closed")
            .unwrap();
        assert_eq!(
            (t.rows[0][col].as_str(), t.rows[1][col].as_str()),
            ("1", "0")
        );
        assert!(!table(&[], &records(0), false)
            .headers
            .contains(&"receiver_closed".to_string()));
        let repeated = csv_table(&[], &conditions(&records(1), None), None);
        let col = repeated
            .headers
            .iter()
            .position(|h| h == "receiver_closed")
            .unwrap();
        assert_eq!(repeated.rows[0][col], "1");
    }
}
