//! Capacity traces as a scenario names them, in mahimahi's format (Netravali et al., "Mahimahi:
//! Accurate Record-and-Replay for HTTP", USENIX ATC 2015): one line per delivery opportunity, the
//! millisecond at which one full-size packet may leave the bottleneck; a time repeated k times
//! is k opportunities; after the last line the trace starts again.
//!
//! Reading the file (with line numbers for errors) is the scenario format's; turning the
//! timestamps into a schedule of delivery opportunities is the link's (`link/trace.rs`).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// A mahimahi capacity trace: delivery opportunities of [`CapacityTrace::OPPORTUNITY_BYTES`] each,
/// at millisecond offsets from the start of one period; the trace repeats after its last
/// timestamp.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityTrace {
    /// The file as the scenario names it (for reports).
    pub file: String,
    /// Opportunity timestamps in milliseconds, non-decreasing, the last one above 0.
    pub millis: Arc<Vec<u64>>,
}

impl CapacityTrace {
    /// Bytes one opportunity delivers: a full-size 1500-byte IP packet, as the traces were
    /// recorded (mahimahi itself counts 1504 bytes, its TUN frame header included; our links
    /// count IP bytes).
    pub const OPPORTUNITY_BYTES: u64 = 1500;

    /// Length of one period.
    pub fn period(&self) -> Duration {
        Duration::from_millis(self.millis.last().copied().unwrap_or(0))
    }

    /// Mean capacity over one period, in bit/s.
    pub fn mean_bps(&self) -> f64 {
        let period = self.period().as_secs_f64();
        if period > 0.0 {
            self.millis.len() as f64 * Self::OPPORTUNITY_BYTES as f64 * 8.0 / period
        } else {
            0.0
        }
    }
}

/// Reads a trace file; `shown` is how messages name it. Errors name the line at fault.
pub fn read(path: &Path, shown: &str) -> Result<CapacityTrace, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        let text = e.to_string();
        let reason = text
            .split(" (os error ")
            .next()
            .unwrap_or(&text)
            .to_string();
        format!("cannot read trace file \"{shown}\": {reason}")
    })?;
    let mut millis = Vec::new();
    let mut previous: Option<(u64, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let word = line.trim();
        if word.is_empty() {
            continue;
        }
        let ms: u64 = word.parse().map_err(|_| {
            format!(
                "trace file \"{shown}\" line {line_no}: \"{word}\" is not a time in whole milliseconds; \
                 expected one non-negative integer per line (mahimahi format)"
            )
        })?;
        if let Some((prev, prev_line)) = previous {
            if ms < prev {
                return Err(format!(
                    "trace file \"{shown}\" line {line_no}: {ms} ms comes after {prev} ms on line {prev_line}; \
                     timestamps must not decrease"
                ));
            }
        }
        previous = Some((ms, line_no));
        millis.push(ms);
    }
    if millis.is_empty() {
        return Err(format!(
            "trace file \"{shown}\" is empty; expected one delivery time in milliseconds per line (mahimahi format)"
        ));
    }
    if millis.last() == Some(&0) {
        return Err(format!(
            "trace file \"{shown}\" lasts 0 ms (every line is 0); its last timestamp sets the period and must be above 0"
        ));
    }
    // These are the checks of the link's schedule loader too (non-decreasing, a last
    // timestamp above 0), so the link builds a schedule from every trace read here.
    Ok(CapacityTrace {
        file: shown.to_string(),
        millis: Arc::new(millis),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn bad_traces_name_file_and_line() {
        let e = read(&write("d.down", "1\n3\n2\n"), "d.down").unwrap_err();
        assert!(
            e.contains("\"d.down\" line 3") && e.contains("must not decrease"),
            "{e}"
        );
        let e = read(&write("e.down", "\n \n"), "e.down").unwrap_err();
        assert!(e.contains("\"e.down\" is empty"), "{e}");
        let e = read(&write("f.down", "1\nx2\n"), "f.down").unwrap_err();
        assert!(e.contains("line 2: \"x2\""), "{e}");
        let e = read(&write("z.down", "0\n0\n"), "z.down").unwrap_err();
        assert!(e.contains("lasts 0 ms"), "{e}");
        let e = read(Path::new("/nonexistent/x.down"), "x.down").unwrap_err();
        assert!(e.contains("cannot read trace file \"x.down\""), "{e}");
    }
}
