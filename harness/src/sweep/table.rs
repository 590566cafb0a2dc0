//! The sweep table, for the terminal and for `sweep.csv`.

use super::Record;
use crate::output::table::TextTable;

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
    let with_seed = records.iter().any(|r| r.point.seed.is_some());
    let mut headers: Vec<String> = vec!["run".into()];
    headers.extend(keys.iter().cloned());
    let mut figures = vec!["controller"];
    if with_seed {
        figures.push("seed");
    }
    figures.extend([
        "flows",
        pick("goodput_total_bps", "Mbit/s total"),
        pick("goodput_mean_bps", "Mbit/s mean"),
        pick("completion_time_s", "completion s"),
        pick("lost_packets", "lost"),
        pick("congestion_events", "cong. events"),
        pick("verdicts_random", "random"),
        pick("verdicts_congestion", "congestion"),
    ]);
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
        if with_seed {
            row.push(r.point.seed.map(|s| s.to_string()).unwrap_or_default());
        }
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
