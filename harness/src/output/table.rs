//! Plain-text tables for the terminal.

use std::fmt::Write as _;

use crate::report::{FlowSummary, Outcome, Summary};
use crate::units::Bytes;

/// A table of strings: numeric-looking cells are right-aligned, others left-aligned.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextTable {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl TextTable {
    pub fn new<S: Into<String>>(headers: impl IntoIterator<Item = S>) -> Self {
        TextTable {
            headers: headers.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Aligned columns. The last cell of a row shorter than the header runs on past the columns
    /// it does not fill (a note such as an error message) and does not widen them.
    pub fn render(&self) -> String {
        let n = self.headers.len();
        let overflow = |row: &Vec<String>, i: usize| row.len() < n && i + 1 == row.len();
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(n) {
                if !overflow(row, i) {
                    widths[i] = widths[i].max(cell.chars().count());
                }
            }
        }
        let numeric: Vec<bool> = (0..n)
            .map(|i| {
                self.rows.iter().all(|r| {
                    overflow(r, i)
                        || r.get(i)
                            .is_none_or(|c| c.is_empty() || c == "-" || c.parse::<f64>().is_ok())
                })
            })
            .collect();
        let mut out = String::new();
        let line = |out: &mut String, cells: &[String]| {
            let mut l = String::new();
            for i in 0..n {
                let cell = cells.get(i).map(String::as_str).unwrap_or("");
                if i > 0 {
                    l.push_str("  ");
                }
                if cells.len() < n && i + 1 == cells.len() {
                    l.push_str(cell);
                    break;
                }
                if numeric[i] {
                    let _ = write!(l, "{cell:>w$}", w = widths[i]);
                } else {
                    let _ = write!(l, "{cell:<w$}", w = widths[i]);
                }
            }
            out.push_str(l.trim_end());
            out.push('\n');
        };
        line(&mut out, &self.headers);
        for row in &self.rows {
            line(&mut out, row);
        }
        out
    }
}

/// Formats seconds, or `-` when absent.
pub fn fmt_opt_s(v: Option<f64>) -> String {
    v.map(|s| format!("{s:.3}")).unwrap_or_else(|| "-".into())
}

/// Bits per second as Mbit/s with three decimals.
pub fn mbit(bps: f64) -> String {
    format!("{:.3}", bps / 1e6)
}

/// One line per flow: the figures `discern run` prints.
pub fn run_table(summary: &Summary) -> TextTable {
    let mut t = TextTable::new([
        "flow",
        "controller",
        "goodput Mbit/s",
        "completion s",
        "lost",
        "cong. events",
        "random",
        "congestion",
        "verified",
        "outcome",
    ]);
    for f in &summary.flows {
        t.push(vec![
            f.flow.to_string(),
            f.controller.clone(),
            mbit(f.goodput_bps),
            fmt_opt_s(f.completion_time_s),
            f.lost_packets.to_string(),
            f.congestion_events.to_string(),
            f.verdicts.random.to_string(),
            f.verdicts.congestion.to_string(),
            verified_cell(f).to_string(),
            f.outcome.name().to_string(),
        ]);
    }
    t
}

/// One controller's (or every controller's) verdicts against the true cause of each loss.
fn accuracy_text(a: &crate::report::VerdictAccuracy) -> String {
    format!(
        "random loss called random {}, called congestion {}; congestion loss called congestion \
         {}, called random {}; spurious {}",
        a.random_as_random,
        a.random_as_congestion,
        a.congestion_as_congestion,
        a.congestion_as_random,
        a.spurious
    )
}

/// `yes` when every delivered byte was checked and there was at least one; `none` when nothing
/// arrived to check, since a check of no bytes shows nothing.
fn verified_cell(f: &FlowSummary) -> &'static str {
    match (f.verified, f.bytes_verified) {
        (false, _) => "NO",
        (true, 0) => "none",
        (true, _) => "yes",
    }
}

/// The run-wide lines printed under the flow table: link, duration, drops, verdict accuracy.
pub fn run_footer(summary: &Summary) -> String {
    let mut s = format!(
        "link: {} ({}), {:.3} s, seed {}\n",
        summary.link.kind, summary.link.engine, summary.duration_s, summary.seed
    );
    if let Some(d) = summary.drops {
        let _ = writeln!(s, "drops: {} queue, {} channel", d.queue, d.channel);
    }
    let delivered: u64 = summary.flows.iter().map(|f| f.bytes_delivered).sum();
    let checked: u64 = summary.flows.iter().map(|f| f.bytes_verified).sum();
    let _ = writeln!(
        s,
        "verified: {checked} of {delivered} delivered bytes checked against the bytes sent{}",
        if summary.flows.iter().all(|f| f.verified) {
            ""
        } else {
            "; some DIFFERED"
        }
    );
    flow_notes(summary, &mut s);
    for l in &summary.links {
        let mut parts = Vec::new();
        if let Some(q) = l.queue_delay {
            parts.push(format!(
                "queueing delay mean {:.1} ms, p95 {:.1} ms",
                q.mean_s * 1e3,
                q.p95_s * 1e3
            ));
        }
        if l.ce_marks > 0 {
            parts.push(format!("{} CE marks", l.ce_marks));
        }
        if l.reordered > 0 {
            parts.push(format!("{} packets reordered", l.reordered));
        }
        if let Some(t) = &l.trace {
            parts.push(format!(
                "trace {:.2} Mbit/s over the run, goodput {:.0} % of it",
                t.mean_capacity_bps / 1e6,
                100.0 * t.goodput_fraction
            ));
        }
        if !parts.is_empty() {
            let _ = writeln!(s, "link {} ({}): {}", l.name, l.queue, parts.join("; "));
        }
    }
    if let Some(a) = summary.verdict_accuracy {
        let _ = writeln!(s, "verdicts vs ground truth: {}", accuracy_text(&a));
    }
    if summary.flows.len() > 1 {
        for f in &summary.flows {
            if let Some(a) = &f.verdict_accuracy {
                let _ = writeln!(s, "  flow {}: {}", f.flow, accuracy_text(a));
            }
        }
    }
    let _ = writeln!(
        s,
        "legend: lost = packets the sender declared lost; cong. events = the loss or ECN events \
         quinn told the controller of (the losses of one recovery period count once); random, \
         congestion = the controller's verdicts on them"
    );
    let limited: Vec<String> = summary
        .flows
        .iter()
        .filter(|f| f.flow_control_limited)
        .map(|f| f.flow.to_string())
        .collect();
    if !limited.is_empty() {
        let _ = writeln!(
            s,
            "note: flow control, not the congestion controller, limited flow(s) {} \
             (the receiver's window; see `receive_window`)",
            limited.join(", ")
        );
    }
    s
}

/// A line for each flow whose receiver closed the connection, and for each whose receiver
/// reported its own ACKs (s2n-quic): how often it acknowledged, and how well the sender
/// recovered the ACK delay it encoded.
fn flow_notes(summary: &Summary, s: &mut String) {
    for f in &summary.flows {
        if let Some(line) = outcome_note(f, summary.duration_s) {
            let _ = writeln!(s, "flow {}: {line}", f.flow);
        }
        if let Some(why) = &f.receiver_closed {
            let _ = writeln!(
                s,
                "flow {}: the receiver closed the connection: {why}",
                f.flow
            );
        }
        if let Some(a) = f.receiver_acks {
            let _ = writeln!(
                s,
                "flow {}: the receiver sent {} ACK frames for {} packets; recovered ACK delay \
                 within 1 ms of the encoded one for {:.1} % of {} frames (error mean {:.0} us, \
                 p95 {} us; {} unmatched)",
                f.flow,
                a.frames_sent,
                a.packets_received,
                100.0 * a.ack_delay_within_1ms,
                a.frames_checked,
                a.ack_delay_error_mean_us,
                a.ack_delay_error_p95_us,
                a.frames_unmatched
            );
        }
    }
}

/// What a flow that did not do what it was meant to did instead, in a run of `duration_s`.
fn outcome_note(f: &FlowSummary, duration_s: f64) -> Option<String> {
    match f.outcome {
        Outcome::Completed | Outcome::Unbounded | Outcome::ReceiverClosed => None,
        Outcome::NoHandshake => Some(format!(
            "NO HANDSHAKE: the connection never completed its handshake in the run's {duration_s:.3} \
             s, so no byte was sent"
        )),
        Outcome::Incomplete => Some(match f.bytes_asked {
            Some(asked) => format!(
                "INCOMPLETE: {} of {} delivered ({:.1} %) when the run ended at {duration_s:.3} s",
                Bytes(f.bytes_delivered),
                Bytes(asked),
                100.0 * f.bytes_delivered as f64 / asked.max(1) as f64
            ),
            None => format!("INCOMPLETE: nothing delivered in the run's {duration_s:.3} s"),
        }),
    }
}

/// The flows that did not finish what they were meant to (`incomplete`, `no_handshake`), for
/// the line `run` fails with.
pub fn unfinished(summary: &Summary) -> Vec<String> {
    summary
        .flows
        .iter()
        .filter(|f| f.outcome.is_unfinished())
        .map(|f| format!("flow {} {}", f.flow, f.outcome.name()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footer_names_flow_control_limited_flows() {
        let mut summary: Summary = serde_json::from_str(SUMMARY).unwrap();
        assert!(!run_footer(&summary).contains("flow control"));
        summary.flows[0].flow_control_limited = true;
        assert!(run_footer(&summary).contains("limited flow(s) 0"));
    }

    #[test]
    fn footer_scores_a_receiver_that_reports_its_acks() {
        let mut summary: Summary = serde_json::from_str(SUMMARY).unwrap();
        assert!(!run_footer(&summary).contains("ACK frames"));
        summary.flows[0].receiver_acks = Some(crate::report::ReceiverAcks {
            packets_received: 1864,
            frames_sent: 255,
            frames_checked: 230,
            frames_unmatched: 1,
            ack_delay_within_1ms: 0.996,
            ack_delay_error_mean_us: 86.0,
            ..Default::default()
        });
        assert!(
            run_footer(&summary).contains(
                "flow 0: the receiver sent 255 ACK frames for 1864 packets; recovered ACK delay \
                 within 1 ms of the encoded one for 99.6 % of 230 frames (error mean 86 us, p95 \
                 0 us; 1 unmatched)"
            ),
            "{}",
            run_footer(&summary)
        );
    }

    const SUMMARY: &str = r#"{"scenario":"s","link":{"kind":"sim","engine":"e"},"duration_s":1.0,
        "seed":1,"flows":[{"flow":0,"controller":"newreno","outcome":"unbounded",
        "bytes_delivered":1,"bytes_verified":1,
        "packets_delivered":1,"goodput_bps":8.0,"start_s":0.0,"completion_time_s":null,
        "lost_packets":0,"congestion_events":0,"verdicts":{"random":0,"congestion":0},
        "verified":true,"flow_control_limited":false}],"links":[],"drops":null,
        "verdict_accuracy":null}"#;

    #[test]
    fn aligns_numbers_right_and_text_left() {
        let mut t = TextTable::new(["name", "n"]);
        t.push(vec!["a".into(), "1".into()]);
        t.push(vec!["long-name".into(), "100".into()]);
        let r = t.render();
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[0], "name         n");
        assert_eq!(lines[1], "a            1");
        assert_eq!(lines[2], "long-name  100");
    }

    #[test]
    fn a_short_rows_last_cell_runs_on_without_widening() {
        let mut t = TextTable::new(["a", "b", "c"]);
        t.push(vec!["1".into(), "22".into(), "3".into()]);
        t.push(vec!["4".into(), "failed: a long message".into()]);
        let r = t.render();
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[0], "a   b  c");
        assert_eq!(lines[1], "1  22  3");
        assert_eq!(lines[2], "4  failed: a long message");
    }
}
