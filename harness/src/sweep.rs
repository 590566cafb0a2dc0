//! Sweeps: every combination of varied scenario values and controllers, run in parallel, gathered
//! into one table (`sweep.csv`) and a goodput plot.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{bail, Context};

use crate::output::plot::{Chart, Line, XAxis};
use crate::output::table::TextTable;
use crate::report::{RunOutput, Summary, VerdictAccuracy};
use crate::scenario::Scenario;

/// `--vary KEY=V1,V2,...`: one scenario key and the values it takes, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vary {
    pub key: String,
    pub values: Vec<String>,
}

impl FromStr for Vary {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let Some((key, values)) = s.split_once('=') else {
            return Err(format!("`{s}` has no `=`: expected KEY=V1,V2,..."));
        };
        let key = key.trim();
        if key.is_empty() {
            return Err(format!("`{s}` has an empty key: expected KEY=V1,V2,..."));
        }
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            return Err(format!(
                "`{s}` has an empty value: expected KEY=V1,V2,... with no empty item"
            ));
        }
        Ok(Vary {
            key: key.to_string(),
            values,
        })
    }
}

impl fmt::Display for Vary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key, self.values.join(","))
    }
}

/// Splits a `--controller` list into ids. Ids are separated by `,`; `:`, `=` and `+` stay inside
/// an id (`modified-sack:tolerance=0.02,composite+quinn-cubic` is two ids). A controller's own
/// parameters are also separated by `,` (`wnewreno:margin=0.1,granularity=2ms`): a piece whose
/// text before its first `=` has no `:` or `+` is the next parameter of the id before it.
pub fn split_controllers(list: &str) -> anyhow::Result<Vec<String>> {
    let mut ids: Vec<String> = Vec::new();
    for piece in list.split(',').map(str::trim) {
        if piece.is_empty() {
            bail!("`{list}` has an empty controller id");
        }
        let continues = piece
            .split_once('=')
            .is_some_and(|(head, _)| !head.contains([':', '+']));
        match ids.last_mut() {
            Some(last) if continues => {
                last.push(',');
                last.push_str(piece);
            }
            _ => ids.push(piece.to_string()),
        }
    }
    Ok(ids)
}

/// One run of a sweep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    /// Position in the sweep, from 0.
    pub index: usize,
    /// One `(key, value)` per `--vary`, in the order given.
    pub values: Vec<(String, String)>,
    /// The controller every flow runs, or `None` to keep the scenario's own.
    pub controller: Option<String>,
}

impl Point {
    /// The `--set` form of the varied values.
    pub fn overrides(&self) -> Vec<String> {
        self.values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect()
    }

    /// Folder name under `runs/`: the zero-padded index, then values and controller made safe.
    pub fn dir_name(&self, total: usize) -> String {
        let width = total.saturating_sub(1).max(1).to_string().len();
        let mut parts: Vec<String> = self
            .values
            .iter()
            .map(|(k, v)| {
                // The last two parts of the key tell `loss.rate` from `bottleneck.rate`.
                let parts: Vec<&str> = k.rsplitn(3, '.').take(2).collect();
                let short: Vec<&str> = parts.into_iter().rev().collect();
                format!("{}={v}", short.join("."))
            })
            .collect();
        if let Some(c) = &self.controller {
            parts.push(c.clone());
        }
        let slug: String = parts
            .join("-")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '=' | '+') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{:0width$}-{slug}", self.index)
    }
}

/// Every combination, the first `--vary` varying slowest and the controller fastest, so the runs
/// of one condition sit together.
pub fn expand(varies: &[Vary], controllers: Option<&[String]>) -> Vec<Point> {
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for v in varies {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                v.values.iter().map(move |val| {
                    let mut c = c.clone();
                    c.push((v.key.clone(), val.clone()));
                    c
                })
            })
            .collect();
    }
    let ctrls: Vec<Option<String>> = match controllers {
        Some(list) => list.iter().cloned().map(Some).collect(),
        None => vec![None],
    };
    let mut points = Vec::new();
    for values in combos {
        for c in &ctrls {
            points.push(Point {
                index: points.len(),
                values: values.clone(),
                controller: c.clone(),
            });
        }
    }
    points
}

/// Per-run figures summed or averaged over the flows.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    pub flows: usize,
    pub goodput_total_bps: f64,
    pub goodput_mean_bps: f64,
    /// The longest completion time; `None` if any flow did not complete.
    pub completion_time_s: Option<f64>,
    pub lost_packets: u64,
    pub congestion_events: u64,
    pub verdicts_random: u64,
    pub verdicts_congestion: u64,
    pub accuracy: Option<VerdictAccuracy>,
    /// Every flow's bytes were verified.
    pub verified: bool,
}

impl Aggregate {
    pub fn of(s: &Summary) -> Aggregate {
        let n = s.flows.len();
        let total: f64 = s.flows.iter().map(|f| f.goodput_bps).sum();
        let completion = if n == 0 {
            None
        } else {
            s.flows
                .iter()
                .map(|f| f.completion_time_s)
                .try_fold(0.0f64, |m, c| c.map(|c| m.max(c)))
        };
        Aggregate {
            flows: n,
            goodput_total_bps: total,
            goodput_mean_bps: if n == 0 { 0.0 } else { total / n as f64 },
            completion_time_s: completion,
            lost_packets: s.flows.iter().map(|f| f.lost_packets).sum(),
            congestion_events: s.flows.iter().map(|f| f.congestion_events).sum(),
            verdicts_random: s.flows.iter().map(|f| f.verdicts.random).sum(),
            verdicts_congestion: s.flows.iter().map(|f| f.verdicts.congestion).sum(),
            accuracy: s.verdict_accuracy,
            verified: s.flows.iter().all(|f| f.verified),
        }
    }
}

/// The outcome of one point.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub point: Point,
    /// The controller column: the id the point set, else the scenario's own ids joined by ` / `.
    pub controller: String,
    pub result: Result<Aggregate, String>,
}

/// The label for a point's controller column.
pub fn controller_label(point: &Point, scenario: &Scenario) -> String {
    if let Some(c) = &point.controller {
        return c.clone();
    }
    let mut ids: Vec<&str> = Vec::new();
    for f in &scenario.flows {
        if !ids.contains(&f.controller.as_str()) {
            ids.push(&f.controller);
        }
    }
    ids.join(" / ")
}

/// A runner as a sweep sees it.
pub type Runner<'a> = dyn Fn(&Scenario) -> anyhow::Result<RunOutput> + Sync + 'a;
/// Called in the worker thread after each run, e.g. to write its outputs and tick a progress bar.
/// An error it returns marks the point as failed.
pub type OnDone<'a> = dyn Fn(&Point, &RunOutput) -> anyhow::Result<()> + Sync + 'a;

/// Runs every `(point, scenario)` on `threads` worker threads and returns one record per point,
/// in point order. A failing run is recorded with its error; the others go on.
pub fn run_all(
    jobs: Vec<(Point, Scenario)>,
    runner: &Runner<'_>,
    threads: usize,
    on_done: &OnDone<'_>,
) -> Vec<Record> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Record>>> = Mutex::new(vec![None; jobs.len()]);
    let threads = threads.clamp(1, jobs.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((point, scenario)) = jobs.get(i) else {
                    break;
                };
                let result = runner(scenario).and_then(|out| {
                    on_done(point, &out)?;
                    Ok(Aggregate::of(&out.summary))
                });
                let record = Record {
                    point: point.clone(),
                    controller: controller_label(point, scenario),
                    result: result.map_err(|e| format!("{e:#}")),
                };
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(record);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.expect("every job was run"))
        .collect()
}

/// The sweep table. For `sweep.csv` (`human == false`): goodput in bit/s, `true`/`false`, empty
/// cells for absent values, and an `error` column when any run failed. For the terminal: short
/// headers, Mbit/s, `yes`/`NO`, `-` for absent values, and a failed run's error in place of its
/// figures. Verdict-accuracy columns appear when any run has them.
pub fn table(keys: &[String], records: &[Record], human: bool) -> TextTable {
    let with_accuracy = records
        .iter()
        .any(|r| matches!(&r.result, Ok(a) if a.accuracy.is_some()));
    let with_error = !human && records.iter().any(|r| r.result.is_err());
    let pick = |csv: &'static str, text: &'static str| if human { text } else { csv };
    let mut headers: Vec<String> = vec!["run".into()];
    headers.extend(keys.iter().cloned());
    let mut figures = vec![
        "controller",
        "flows",
        pick("goodput_total_bps", "Mbit/s total"),
        pick("goodput_mean_bps", "Mbit/s mean"),
        pick("completion_time_s", "completion s"),
        pick("lost_packets", "lost"),
        pick("congestion_events", "cong. events"),
        pick("verdicts_random", "random"),
        pick("verdicts_congestion", "congestion"),
    ];
    if with_accuracy {
        figures.extend([
            pick("random_as_random", "rnd→rnd"),
            pick("random_as_congestion", "rnd→cong"),
            pick("congestion_as_congestion", "cong→cong"),
            pick("congestion_as_random", "cong→rnd"),
            "spurious",
        ]);
    }
    figures.push("verified");
    if with_error {
        figures.push("error");
    }
    headers.extend(figures.into_iter().map(String::from));
    let absent = || {
        if human {
            "-".to_string()
        } else {
            String::new()
        }
    };
    let mut t = TextTable::new(headers.clone());
    for r in records {
        let mut row = vec![r.point.index.to_string()];
        row.extend(r.point.values.iter().map(|(_, v)| v.clone()));
        row.push(r.controller.clone());
        match &r.result {
            Ok(a) => {
                let rate = |bps: f64| {
                    if human {
                        format!("{:.3}", bps / 1e6)
                    } else {
                        format!("{bps:.0}")
                    }
                };
                row.push(a.flows.to_string());
                row.push(rate(a.goodput_total_bps));
                row.push(rate(a.goodput_mean_bps));
                row.push(match a.completion_time_s {
                    Some(c) if human => format!("{c:.3}"),
                    Some(c) => c.to_string(),
                    None => absent(),
                });
                for v in [
                    a.lost_packets,
                    a.congestion_events,
                    a.verdicts_random,
                    a.verdicts_congestion,
                ] {
                    row.push(v.to_string());
                }
                if with_accuracy {
                    match a.accuracy {
                        Some(acc) => row.extend(
                            [
                                acc.random_as_random,
                                acc.random_as_congestion,
                                acc.congestion_as_congestion,
                                acc.congestion_as_random,
                                acc.spurious,
                            ]
                            .map(|v| v.to_string()),
                        ),
                        None => row.extend(std::iter::repeat_with(absent).take(5)),
                    }
                }
                row.push(match (human, a.verified) {
                    (true, true) => "yes".into(),
                    (true, false) => "NO".into(),
                    (false, v) => v.to_string(),
                });
                if with_error {
                    row.push(String::new());
                }
            }
            Err(e) if human => row.push(format!("failed: {e}")),
            Err(e) => {
                let blanks = headers.len() - row.len() - 1;
                row.extend(std::iter::repeat_n(String::new(), blanks));
                row.push(e.clone());
            }
        }
        t.push(row);
    }
    t
}

/// `value` as a number and its unit suffix (`100Mbit` -> (100, "Mbit"), `0.01` -> (0.01, "")).
fn number_and_unit(value: &str) -> Option<(f64, &str)> {
    let split = value
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
        .unwrap_or(value.len());
    // `e` may start a unit (none of ours does) rather than an exponent: try the longest number.
    (1..=split)
        .rev()
        .find_map(|n| value[..n].parse::<f64>().ok().map(|x| (x, &value[n..])))
}

/// `goodput.{png,svg}`: total goodput vs the first varied value, one line per controller (and per
/// combination of the other varied values). Failed runs are left out.
pub fn goodput_plot(
    dir: &Path,
    scenario: &str,
    varies: &[Vary],
    records: &[Record],
) -> anyhow::Result<Vec<PathBuf>> {
    let Some(first) = varies.first() else {
        bail!("a goodput plot needs a varied value");
    };
    let parsed: Option<Vec<(f64, &str)>> =
        first.values.iter().map(|v| number_and_unit(v)).collect();
    let unit_shared = parsed
        .as_ref()
        .filter(|p| p.iter().all(|(_, u)| *u == p[0].1));
    let (x_axis, x_of, x_label): (XAxis, Vec<f64>, String) = match unit_shared {
        Some(p) => {
            let xs: Vec<f64> = p.iter().map(|(x, _)| *x).collect();
            let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let log = lo > 0.0 && hi / lo >= 20.0;
            let unit = p[0].1;
            let label = if unit.is_empty() {
                first.key.clone()
            } else {
                format!("{} ({unit})", first.key)
            };
            (if log { XAxis::Log } else { XAxis::Linear }, xs, label)
        }
        None => (
            XAxis::Categories(first.values.clone()),
            (0..first.values.len()).map(|i| i as f64).collect(),
            first.key.clone(),
        ),
    };
    let mut lines: Vec<Line> = Vec::new();
    for r in records {
        let Ok(a) = &r.result else { continue };
        let mut label = r.controller.clone();
        for (k, v) in r.point.values.iter().skip(1) {
            label.push_str(&format!(", {k}={v}"));
        }
        let Some(xi) = first
            .values
            .iter()
            .position(|v| Some(v) == r.point.values.first().map(|(_, v)| v))
        else {
            continue;
        };
        let p = (x_of[xi], a.goodput_total_bps / 1e6);
        match lines.iter_mut().find(|l| l.label == label) {
            Some(l) => l.points.push(p),
            None => lines.push(Line {
                label,
                points: vec![p],
            }),
        }
    }
    for l in &mut lines {
        l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Chart {
        title: format!("{scenario}: goodput"),
        x_label,
        y_label: "goodput (Mbit/s)".into(),
        x_axis,
        markers: true,
        lines,
    }
    .write(dir, "goodput")
    .context("drawing the goodput plot")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vary_parses_key_and_values() {
        let v: Vary = "link.bottleneck.loss.rate=0.001, 0.01,0.1".parse().unwrap();
        assert_eq!(v.key, "link.bottleneck.loss.rate");
        assert_eq!(v.values, ["0.001", "0.01", "0.1"]);
        assert_eq!(v.to_string(), "link.bottleneck.loss.rate=0.001,0.01,0.1");
    }

    #[test]
    fn vary_rejects_missing_equals_empty_key_and_empty_values() {
        assert!("seed".parse::<Vary>().unwrap_err().contains("no `=`"));
        assert!("=1,2".parse::<Vary>().unwrap_err().contains("empty key"));
        assert!("seed=".parse::<Vary>().unwrap_err().contains("empty value"));
        assert!("seed=1,,2"
            .parse::<Vary>()
            .unwrap_err()
            .contains("empty value"));
    }

    #[test]
    fn controllers_split_on_commas_only() {
        assert_eq!(
            split_controllers("modified-sack:tolerance=0.02,composite+quinn-cubic").unwrap(),
            ["modified-sack:tolerance=0.02", "composite+quinn-cubic"]
        );
        assert!(split_controllers("reno,,tahoe").is_err());
        assert_eq!(
            split_controllers("wnewreno:margin=0.1,granularity=2ms,reno,composite+quinn-cubic")
                .unwrap(),
            [
                "wnewreno:margin=0.1,granularity=2ms",
                "reno",
                "composite+quinn-cubic"
            ]
        );
        assert_eq!(
            split_controllers("modified-sack:tolerance=0,granularity=1ms+newreno,tahoe").unwrap(),
            ["modified-sack:tolerance=0,granularity=1ms+newreno", "tahoe"]
        );
    }

    #[test]
    fn expansion_is_the_cartesian_product_in_order() {
        let varies = vec![
            "a=1,2".parse::<Vary>().unwrap(),
            "b=x,y,z".parse::<Vary>().unwrap(),
        ];
        let ctrls = vec!["reno".to_string(), "composite".to_string()];
        let points = expand(&varies, Some(&ctrls));
        assert_eq!(points.len(), 2 * 3 * 2);
        for (i, p) in points.iter().enumerate() {
            assert_eq!(p.index, i);
        }
        let first = &points[0];
        assert_eq!(
            first.values,
            [("a".into(), "1".into()), ("b".into(), "x".into())]
        );
        assert_eq!(first.controller.as_deref(), Some("reno"));
        assert_eq!(points[1].controller.as_deref(), Some("composite"));
        assert_eq!(points[1].values, first.values);
        assert_eq!(points[2].values[1].1, "y");
        let last = &points[11];
        assert_eq!(
            last.values,
            [("a".into(), "2".into()), ("b".into(), "z".into())]
        );
        assert_eq!(last.controller.as_deref(), Some("composite"));
        // Every combination exactly once.
        let mut seen: Vec<_> = points
            .iter()
            .map(|p| (p.values.clone(), p.controller.clone()))
            .collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 12);
    }

    #[test]
    fn expansion_without_controllers_keeps_the_scenarios_own() {
        let points = expand(&["a=1,2,3".parse().unwrap()], None);
        assert_eq!(points.len(), 3);
        assert!(points.iter().all(|p| p.controller.is_none()));
        assert_eq!(points[2].overrides(), ["a=3"]);
    }

    #[test]
    fn dir_names_are_padded_and_path_safe() {
        let p = Point {
            index: 7,
            values: vec![("link.bottleneck.loss.rate".into(), "0.01".into())],
            controller: Some("modified-sack:tolerance=0.02".into()),
        };
        assert_eq!(
            p.dir_name(120),
            "007-loss.rate=0.01-modified-sack_tolerance=0.02"
        );
        assert_eq!(
            p.dir_name(5),
            "7-loss.rate=0.01-modified-sack_tolerance=0.02"
        );
        let p = Point {
            index: 0,
            values: vec![("seed".into(), "3".into())],
            controller: None,
        };
        assert_eq!(p.dir_name(1), "0-seed=3");
    }

    #[test]
    fn numbers_and_units() {
        assert_eq!(number_and_unit("100Mbit"), Some((100.0, "Mbit")));
        assert_eq!(number_and_unit("0.01"), Some((0.01, "")));
        assert_eq!(number_and_unit("1e-3"), Some((0.001, "")));
        assert_eq!(number_and_unit("50ms"), Some((50.0, "ms")));
        assert_eq!(number_and_unit("gilbert"), None);
    }
}
