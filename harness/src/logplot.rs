//! `discern plot LOGFILE`: a quinn application's JSON log of the controllers' `tracing` events
//! turned into the time series and plots a run of the harness writes.
//!
//! The log is what `tracing-subscriber`'s JSON formatter writes, one object per line, with the
//! event's fields under `fields` and its target under `target` (the README has the recipe). Lines
//! of other targets, and lines that are not JSON (a program's other output), are skipped. Each
//! controller instance (the events' `flow`) becomes one series, timed by the events' own `t_us`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use quinn_discern::trace::{FieldValue, Record, TARGET};
use serde_json::Value;

use crate::output::{self, plot};
use crate::report::{FlowSeries, Sample};

/// What a log held: one series per controller instance, in the order they first logged.
#[derive(Debug, Clone, PartialEq)]
pub struct LogSeries {
    pub series: Vec<FlowSeries>,
    /// Lines that carried a `discern::cwnd` event.
    pub events: usize,
}

/// Reads the series out of a log's text.
pub fn series(text: &str) -> LogSeries {
    let mut flows: BTreeMap<u64, (usize, FlowSeries)> = BTreeMap::new();
    let mut events = 0;
    for line in text.lines() {
        let Some(record) = record_of(line) else {
            continue;
        };
        events += 1;
        let (window, rtt_us) = match &record {
            Record::Window(w) => (w, None),
            Record::Loss(l) => (&l.window, Some(l.rtt_us)),
            _ => continue,
        };
        let order = flows.len();
        let (_, series) = flows.entry(window.origin.flow).or_insert_with(|| {
            (
                order,
                FlowSeries {
                    flow: order,
                    controller: window.origin.controller.clone(),
                    samples: Vec::new(),
                },
            )
        });
        let last_rtt = series.samples.last().map_or(0.0, |s| s.rtt_s);
        series.samples.push(Sample {
            t_s: window.origin.t_us as f64 / 1e6,
            cwnd_bytes: window.cwnd,
            ssthresh_bytes: window.ssthresh,
            rtt_s: rtt_us.map_or(last_rtt, |us| us as f64 / 1e6),
            delivered_bytes: window.acked_bytes,
        });
    }
    let mut series: Vec<(usize, FlowSeries)> = flows.into_values().collect();
    series.sort_by_key(|(order, _)| *order);
    LogSeries {
        series: series.into_iter().map(|(_, s)| s).collect(),
        events,
    }
}

/// The record a log line carries, if it is a `discern::cwnd` event of the JSON formatter.
fn record_of(line: &str) -> Option<Record> {
    let value: Value = serde_json::from_str(line.trim()).ok()?;
    if value.get("target")?.as_str()? != TARGET {
        return None;
    }
    let fields = value.get("fields")?.as_object()?;
    Record::from_fields(fields.iter().filter_map(|(name, v)| {
        let v = match v {
            Value::Bool(b) => FieldValue::Bool(*b),
            Value::Number(n) => FieldValue::U64(n.as_u64()?),
            Value::String(s) => FieldValue::Str(s),
            _ => return None,
        };
        Some((name.as_str(), v))
    }))
}

/// Writes `flows.csv` and the cwnd and throughput plots of the log at `log` into `out`.
pub fn plot_log(log: &Path, out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let text = std::fs::read_to_string(log)
        .map_err(|e| anyhow::anyhow!("cannot read the log {}: {e}", log.display()))?;
    let found = series(&text);
    if found.series.is_empty() {
        anyhow::bail!(
            "{}: no `{TARGET}` events with their fields in it. Log with tracing-subscriber's \
             JSON formatter and the filter `{TARGET}=trace` (README, \"Logs\")",
            log.display()
        );
    }
    std::fs::create_dir_all(out)?;
    let name = log
        .file_stem()
        .map_or_else(|| "log".into(), |s| s.to_string_lossy().into_owned());
    let csv = out.join("flows.csv");
    output::write_flows_csv(&csv, &found.series)?;
    let mut files = vec![csv];
    files.extend(plot::cwnd(out, &name, &found.series)?);
    files.extend(plot::throughput(out, &name, &found.series)?);
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(flow: u64, t_us: u64, cwnd: u64, acked: u64) -> String {
        format!(
            r#"{{"timestamp":"x","level":"TRACE","fields":{{"flow":{flow},"controller":"discern","t_us":{t_us},"acked_bytes":{acked},"event":"window","cwnd":{cwnd},"ssthresh":18446744073709551615,"state":"slow-start"}},"target":"discern::cwnd"}}"#
        )
    }

    #[test]
    fn a_log_becomes_one_series_per_controller_instance() {
        let loss = r#"{"fields":{"flow":7,"controller":"discern","t_us":3000,"acked_bytes":9000,"event":"loss","cwnd":6000,"ssthresh":6000,"state":"recovery","verdict":"congestion","reduced":true,"lost_packets":1,"lost_bytes":1200,"losses_in_window":1,"sent_age_us":40000,"rtt_us":41000,"srtt_us":40000,"min_rtt_us":40000,"reason":"r"},"target":"discern::cwnd"}"#;
        let text = [
            window(7, 1000, 12000, 1200),
            "the program's own output".into(),
            r#"{"fields":{"message":"hello"},"target":"my_app"}"#.into(),
            window(9, 1500, 12000, 0),
            loss.into(),
        ]
        .join("\n");
        let found = series(&text);
        assert_eq!(found.events, 3);
        assert_eq!(found.series.len(), 2);
        let first = &found.series[0];
        assert_eq!((first.flow, first.controller.as_str()), (0, "discern"));
        assert_eq!(first.samples.len(), 2);
        assert_eq!(first.samples[0].t_s, 0.001);
        assert_eq!(first.samples[0].ssthresh_bytes, None);
        assert_eq!(first.samples[1].cwnd_bytes, 6000);
        assert_eq!(first.samples[1].ssthresh_bytes, Some(6000));
        assert_eq!(first.samples[1].rtt_s, 0.041);
        assert_eq!(first.samples[1].delivered_bytes, 9000);
        assert_eq!(found.series[1].flow, 1);
    }

    #[test]
    fn a_log_without_events_is_an_error_that_says_how_to_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("app.log");
        std::fs::write(&log, "plain text\n").unwrap();
        let error = plot_log(&log, &dir.path().join("out"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("no `discern::cwnd` events"), "{error}");
        assert!(error.contains("JSON formatter"), "{error}");
        let missing = plot_log(&dir.path().join("none.log"), dir.path()).unwrap_err();
        assert!(
            missing.to_string().contains("cannot read the log"),
            "{missing}"
        );
    }
}
