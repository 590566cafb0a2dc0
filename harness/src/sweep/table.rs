//! The sweep table, for the terminal and for `sweep.csv`.

use super::{Aggregate, Record};
use crate::output::table::TextTable;

/// The sweep table. For `sweep.csv` (`human == false`): goodput in bit/s, `true`/`false`, empty
/// cells for absent values, and an `error` column when any run failed. For the terminal: short
/// headers, Mbit/s, `yes`/`NO`, `-` for absent values, and a failed run's error in place of its
/// figures. Verdict-accuracy columns appear when any run has them, a `receiver_closed` column
/// (flows whose receiver closed the connection) when any run had one, and an `unfinished` column
/// (flows whose transfer did not finish: `incomplete` or `no_handshake`) when any run had one.
/// The terminal's `verified` is `none` for a run in which some flow delivered nothing to check.
/// When a run has several flows, each flow's goodput and share of the total get their own
/// columns after the totals.
pub fn table(keys: &[String], records: &[Record], human: bool) -> TextTable {
    let layout = Layout {
        human,
        with_seed: records.iter().any(|r| r.point.seed.is_some()),
        with_accuracy: records
            .iter()
            .any(|r| matches!(&r.result, Ok(a) if a.accuracy.is_some())),
        with_error: !human && records.iter().any(|r| r.result.is_err()),
        with_closed: records
            .iter()
            .any(|r| matches!(&r.result, Ok(a) if a.receiver_closed > 0)),
        with_unfinished: records
            .iter()
            .any(|r| matches!(&r.result, Ok(a) if a.unfinished > 0)),
        per_flow: per_flow_columns(records),
    };
    let headers = layout.headers(keys);
    let width = headers.len();
    let mut t = TextTable::new(headers);
    for r in records {
        t.push(layout.row(r, width));
    }
    t
}

/// Which columns the table has, and for whom its cells are written.
struct Layout {
    /// For the terminal rather than `sweep.csv`.
    human: bool,
    with_seed: bool,
    with_accuracy: bool,
    with_error: bool,
    with_closed: bool,
    with_unfinished: bool,
    /// Flows with their own goodput and share columns: every flow of the widest run, when a
    /// run has more than one.
    per_flow: usize,
}

/// How many flows get their own columns: none when every run has one flow, whose own figures
/// are the totals.
fn per_flow_columns(records: &[Record]) -> usize {
    let most = records
        .iter()
        .filter_map(|r| r.result.as_ref().ok())
        .map(|a| a.flow_goodput_bps.len())
        .max()
        .unwrap_or(0);
    if most > 1 {
        most
    } else {
        0
    }
}

impl Layout {
    fn pick(&self, csv: &'static str, text: &'static str) -> &'static str {
        if self.human {
            text
        } else {
            csv
        }
    }

    fn absent(&self) -> String {
        if self.human {
            "-".to_string()
        } else {
            String::new()
        }
    }

    fn rate(&self, bps: f64) -> String {
        if self.human {
            format!("{:.3}", bps / 1e6)
        } else {
            format!("{bps:.0}")
        }
    }

    /// The run column, the varied `keys`, then the figures.
    fn headers(&self, keys: &[String]) -> Vec<String> {
        let mut headers: Vec<String> = vec!["run".into()];
        headers.extend(keys.iter().cloned());
        let mut figures = vec!["controller"];
        if self.with_seed {
            figures.push("seed");
        }
        figures.extend([
            "flows",
            self.pick("goodput_total_bps", "Mbit/s total"),
            self.pick("goodput_mean_bps", "Mbit/s mean"),
        ]);
        headers.extend(figures.into_iter().map(String::from));
        for i in 0..self.per_flow {
            if self.human {
                headers.extend([format!("flow {i} Mbit/s"), format!("flow {i} %")]);
            } else {
                headers.extend([format!("flow{i}_goodput_bps"), format!("flow{i}_share")]);
            }
        }
        let mut figures = vec![
            self.pick("completion_time_s", "completion s"),
            self.pick("lost_packets", "lost"),
            self.pick("congestion_events", "cong. events"),
            self.pick("verdicts_random", "random"),
            self.pick("verdicts_congestion", "congestion"),
        ];
        if self.with_accuracy {
            figures.extend([
                self.pick("random_as_random", "rnd→rnd"),
                self.pick("random_as_congestion", "rnd→cong"),
                self.pick("congestion_as_congestion", "cong→cong"),
                self.pick("congestion_as_random", "cong→rnd"),
                "spurious",
            ]);
        }
        figures.push("verified");
        if self.with_closed {
            figures.push(self.pick("receiver_closed", "rcv closed"));
        }
        if self.with_unfinished {
            figures.push("unfinished");
        }
        if self.with_error {
            figures.push("error");
        }
        headers.extend(figures.into_iter().map(String::from));
        headers
    }

    /// The row of run `r`, in a table `width` columns wide.
    fn row(&self, r: &Record, width: usize) -> Vec<String> {
        let mut row = vec![r.point.index.to_string()];
        row.extend(r.point.values.iter().map(|(_, v)| v.clone()));
        row.push(r.controller.clone());
        if self.with_seed {
            row.push(r.point.seed.map(|s| s.to_string()).unwrap_or_default());
        }
        match &r.result {
            Ok(a) => self.figures(a, &mut row),
            Err(e) if self.human => row.push(format!("failed: {e}")),
            Err(e) => {
                let blanks = width - row.len() - 1;
                row.extend(std::iter::repeat_n(String::new(), blanks));
                row.push(e.clone());
            }
        }
        row
    }

    /// The cells of a run that finished.
    fn figures(&self, a: &Aggregate, row: &mut Vec<String>) {
        row.push(a.flows.to_string());
        row.push(self.rate(a.goodput_total_bps));
        row.push(self.rate(a.goodput_mean_bps));
        for i in 0..self.per_flow {
            match (a.flow_goodput_bps.get(i), a.share(i)) {
                (Some(&g), share) => {
                    row.push(self.rate(g));
                    row.push(match share {
                        Some(x) if self.human => format!("{:.1}", 100.0 * x),
                        Some(x) => format!("{x:.4}"),
                        None => self.absent(),
                    });
                }
                (None, _) => row.extend([self.absent(), self.absent()]),
            }
        }
        row.push(match a.completion_time_s {
            Some(c) if self.human => format!("{c:.3}"),
            Some(c) => c.to_string(),
            None => self.absent(),
        });
        for v in [
            a.lost_packets,
            a.congestion_events,
            a.verdicts_random,
            a.verdicts_congestion,
        ] {
            row.push(v.to_string());
        }
        if self.with_accuracy {
            self.accuracy(a, row);
        }
        row.push(match (self.human, a.verified) {
            (true, false) => "NO".into(),
            (true, true) if a.delivered_nothing > 0 => "none".into(),
            (true, true) => "yes".into(),
            (false, v) => v.to_string(),
        });
        if self.with_closed {
            row.push(a.receiver_closed.to_string());
        }
        if self.with_unfinished {
            row.push(a.unfinished.to_string());
        }
        if self.with_error {
            row.push(String::new());
        }
    }

    fn accuracy(&self, a: &Aggregate, row: &mut Vec<String>) {
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
            None => row.extend(std::iter::repeat_with(|| self.absent()).take(5)),
        }
    }
}
