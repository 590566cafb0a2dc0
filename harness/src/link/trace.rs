//! Recorded capacity traces in mahimahi's format (Netravali et al., "Mahimahi: Accurate
//! Record-and-Replay for HTTP", USENIX ATC 2015): one line per delivery opportunity, the
//! millisecond at which one full-size packet may leave the bottleneck; a time repeated k times
//! is k opportunities; after the last line the trace starts again.
//!
//! Reading the file (with line numbers for errors) is ours; turning the timestamps into a
//! schedule of delivery opportunities is the `netem-trace` crate's mahimahi loader, which follows
//! mahimahi's timing exactly (same-millisecond lines merge into one larger opportunity, leading
//! zeros of the next period go out with the last line of the previous one).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use netem_trace::{load_mahimahi_heavy_pdo_trace, HeavyPdoTrace};

use super::units::Nanos;

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
    let trace = CapacityTrace {
        file: shown.to_string(),
        millis: Arc::new(millis),
    };
    // Check that the crate accepts it too, so a link never fails to build later.
    Schedule::new(&trace)?;
    Ok(trace)
}

/// One period of a trace as delivery opportunities: when each may send, and how many bytes.
#[derive(Debug)]
pub struct Schedule {
    /// Offsets from the start of the period, non-decreasing; the last one is the period.
    at: Vec<Nanos>,
    bytes: Vec<u64>,
    period: Nanos,
}

impl Schedule {
    pub fn new(trace: &CapacityTrace) -> Result<Self, String> {
        let mut pdo = load_mahimahi_heavy_pdo_trace(
            trace.millis.to_vec(),
            Some(1),
            CapacityTrace::OPPORTUNITY_BYTES,
        )
        .map_err(|e| format!("trace file \"{}\": {e}", trace.file))?
        .build();
        let (mut at, mut bytes, mut t) = (Vec::new(), Vec::new(), 0);
        while let Some((gap, b)) = pdo.next_heavy_pdo() {
            t += gap.as_nanos() as Nanos;
            at.push(t);
            bytes.push(b);
        }
        match at.last() {
            Some(&period) if period > 0 => Ok(Self { at, bytes, period }),
            _ => Err(format!("trace file \"{}\" lasts 0 ms", trace.file)),
        }
    }

    /// When opportunity `k` (counted from the start of the run, over repeated periods) comes.
    pub fn time(&self, k: u64) -> Nanos {
        let n = self.at.len() as u64;
        (k / n) * self.period + self.at[(k % n) as usize]
    }

    pub fn bytes(&self, k: u64) -> u64 {
        self.bytes[(k % self.at.len() as u64) as usize]
    }

    /// The first opportunity at or after `t`.
    pub fn first_at_or_after(&self, t: Nanos) -> u64 {
        let n = self.at.len() as u64;
        let (cycle, within) = (t / self.period, t % self.period);
        // `within < period == at.last()`, so some opportunity of this period qualifies.
        let i = self.at.partition_point(|&a| a < within) as u64;
        cycle * n + i
    }

    /// Bytes the trace can deliver in `[0, end]`.
    pub fn capacity_bytes(&self, end: Nanos) -> u64 {
        let per_period: u64 = self.bytes.iter().sum();
        let (cycles, within) = (end / self.period, end % self.period);
        let i = self.at.partition_point(|&a| a <= within);
        cycles * per_period + self.bytes[..i].iter().sum::<u64>()
    }
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
    fn schedule_repeats_and_merges_same_millisecond_lines() {
        let p = write("a.down", "1\n1\n5\n6\n");
        let t = read(&p, "a.down").unwrap();
        let s = Schedule::new(&t).unwrap();
        const MS: Nanos = 1_000_000;
        // Lines 1, 1 -> one opportunity of 3000 bytes at 1 ms; then 5 ms; 6 ms; period 6 ms.
        assert_eq!((s.time(0), s.bytes(0)), (MS, 3000));
        assert_eq!((s.time(1), s.time(2)), (5 * MS, 6 * MS));
        assert_eq!((s.time(3), s.bytes(3)), (7 * MS, 3000));
        assert_eq!(s.first_at_or_after(2 * MS), 1);
        assert_eq!(s.first_at_or_after(6 * MS + 1), 3);
        assert_eq!(s.capacity_bytes(6 * MS), 6000);
        assert_eq!(s.capacity_bytes(7 * MS), 9000);
        assert!((t.mean_bps() - 4.0 * 1500.0 * 8.0 / 0.006).abs() < 1e-6);
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
