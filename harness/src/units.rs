//! Units at the edges: sizes in bytes, rates in bit/s, the headers a datagram carries on the wire.
//! Durations are `std::time::Duration`.
//!
//! Every quantity is parsed exactly (decimal arithmetic, no floating point), so `Display` followed
//! by `FromStr` gives back the same value.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// IPv4 + UDP header bytes added to every QUIC datagram on the wire.
pub const IP_UDP_OVERHEAD: u64 = 28;

/// The smallest UDP payload QUIC allows (RFC 9000 section 14).
pub const QUIC_MIN_DATAGRAM: u64 = 1200;

/// A size in bytes. Parsed from `1500`, `1500B`, `1.6MB` (SI, 10^6), `20MiB` (binary), `64KB`, `1GB`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bytes(pub u64);

/// A rate in bits per second. Parsed from bit units (`100Mbit`, `1.5Mbit`, `2Mbps`, `10kbit`,
/// `1Gbit`, `9600bit`) and byte units (`2.5MBps` is 20 Mbit/s); a number needs its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct BitRate(pub u64);

/// Which kind of quantity failed to parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    Rate,
    Size,
    Duration,
}

impl Quantity {
    fn noun(self) -> &'static str {
        match self {
            Quantity::Rate => "rate",
            Quantity::Size => "size",
            Quantity::Duration => "duration",
        }
    }

    fn examples(self) -> &'static str {
        match self {
            Quantity::Rate => "such as 100Mbit, 1.5Mbit or 2Mbps",
            Quantity::Size => "such as 1500, 64KB, 1.6MB or 20MiB",
            Quantity::Duration => "such as 50ms, 1.5s or 2min",
        }
    }

    fn units(self) -> &'static str {
        match self {
            Quantity::Rate => {
                "bit, kbit, Mbit, Gbit, bps, kbps, Mbps, Gbps (bits), Bps, kBps, MBps, GBps (bytes)"
            }
            Quantity::Size => "B, KB, MB, GB, KiB, MiB, GiB",
            Quantity::Duration => "ns, us, ms, s, min",
        }
    }

    fn whole(self) -> &'static str {
        match self {
            Quantity::Rate => "a whole number of bit/s",
            Quantity::Size => "a whole number of bytes",
            Quantity::Duration => "a whole number of nanoseconds",
        }
    }
}

/// What was wrong with the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnitProblem {
    Empty,
    /// Not a decimal number followed by a unit.
    NotANumber,
    Negative,
    UnknownUnit(String),
    /// A size written with a lower-case `b`, which conventionally means bits.
    LooksLikeBits(String),
    /// A duration or a rate without a unit.
    MissingUnit,
    /// The value is finer than the smallest unit (e.g. `1.5bit`).
    Fractional,
    Overflow,
}

/// A quantity that could not be parsed; `Display` says what was found and what is expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError {
    pub quantity: Quantity,
    pub input: String,
    pub problem: UnitProblem,
}

impl UnitError {
    fn new(quantity: Quantity, input: &str, problem: UnitProblem) -> Self {
        UnitError {
            quantity,
            input: input.to_string(),
            problem,
        }
    }

    /// The explanation alone, without the `bad rate "..."` prefix.
    pub fn reason(&self) -> String {
        let q = self.quantity;
        match &self.problem {
            UnitProblem::Empty => format!(
                "it is empty; expected a number with a unit, {}",
                q.examples()
            ),
            UnitProblem::NotANumber => format!("expected a number with a unit, {}", q.examples()),
            UnitProblem::Negative => match q {
                Quantity::Duration => {
                    format!(
                        "a duration cannot be negative; expected 0s or more, {}",
                        q.examples()
                    )
                }
                _ => format!("a {} must be positive, {}", q.noun(), q.examples()),
            },
            UnitProblem::UnknownUnit(u) => {
                format!("unknown unit \"{u}\"; expected one of: {}", q.units())
            }
            UnitProblem::LooksLikeBits(u) => format!(
                "\"{u}\" with a lower-case b means bits; sizes are in bytes (B), {}",
                q.examples()
            ),
            UnitProblem::MissingUnit => {
                format!(
                    "a {} needs a unit ({}), {}",
                    q.noun(),
                    q.units(),
                    q.examples()
                )
            }
            UnitProblem::Fractional => format!("a {} must be {}", q.noun(), q.whole()),
            UnitProblem::Overflow => match q {
                Quantity::Rate => format!("too large; the largest rate is {}", BitRate(u64::MAX)),
                Quantity::Size => format!("too large; the largest size is {}", Bytes(u64::MAX)),
                Quantity::Duration => {
                    "too large; the largest duration is about 584 years".to_string()
                }
            },
        }
    }
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad {} \"{}\": {}",
            self.quantity.noun(),
            self.input,
            self.reason()
        )
    }
}

impl std::error::Error for UnitError {}

/// A non-negative decimal number split at its point: `12.034` is `("12", "034")`.
struct Decimal<'a> {
    int: &'a str,
    frac: &'a str,
}

/// Split `text` into a decimal number and the unit after it, trimming whitespace around both.
fn split_number(text: &str, q: Quantity) -> Result<(Decimal<'_>, &str), UnitError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(UnitError::new(q, text, UnitProblem::Empty));
    }
    if let Some(rest) = trimmed.strip_prefix('-') {
        // Only call it negative if a number follows; `-fast` is simply not a number.
        if rest.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            return Err(UnitError::new(q, text, UnitProblem::Negative));
        }
        return Err(UnitError::new(q, text, UnitProblem::NotANumber));
    }
    let int_end = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let int = &trimmed[..int_end];
    let mut rest = &trimmed[int_end..];
    let mut frac = "";
    if let Some(after_point) = rest.strip_prefix('.') {
        let frac_end = after_point
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after_point.len());
        frac = &after_point[..frac_end];
        rest = &after_point[frac_end..];
        if frac.is_empty() {
            return Err(UnitError::new(q, text, UnitProblem::NotANumber));
        }
    }
    if int.is_empty() && frac.is_empty() {
        return Err(UnitError::new(q, text, UnitProblem::NotANumber));
    }
    Ok((Decimal { int, frac }, rest.trim_start()))
}

/// `number * scale / divisor`, exactly; errors if not whole or if above `u64::MAX`.
fn scale(number: &Decimal<'_>, mul: u128, text: &str, q: Quantity) -> Result<u64, UnitError> {
    let overflow = || UnitError::new(q, text, UnitProblem::Overflow);
    let mut int: u128 = 0;
    for d in number.int.bytes() {
        int = int
            .checked_mul(10)
            .and_then(|v| v.checked_add(u128::from(d - b'0')))
            .ok_or_else(overflow)?;
        if int > u128::from(u64::MAX) {
            return Err(overflow());
        }
    }
    let whole = int.checked_mul(mul).ok_or_else(overflow)?;
    // Trailing zeros of the fraction carry no value; dropping them keeps 10^len small.
    let frac_digits = number.frac.trim_end_matches('0');
    let mut frac_part: u128 = 0;
    if !frac_digits.is_empty() {
        // `f * mul` must fit in a u128 (`mul` is at most 6e10, a minute in ns); a longer fraction
        // is finer than any unit this module uses.
        if frac_digits.len() > 27 {
            return Err(UnitError::new(q, text, UnitProblem::Fractional));
        }
        let mut f: u128 = 0;
        for d in frac_digits.bytes() {
            f = f * 10 + u128::from(d - b'0');
        }
        let denom = 10u128.pow(frac_digits.len() as u32);
        let scaled = f
            .checked_mul(mul)
            .ok_or_else(|| UnitError::new(q, text, UnitProblem::Fractional))?;
        if scaled % denom != 0 {
            return Err(UnitError::new(q, text, UnitProblem::Fractional));
        }
        frac_part = scaled / denom;
    }
    let total = whole.checked_add(frac_part).ok_or_else(overflow)?;
    u64::try_from(total).map_err(|_| overflow())
}

impl FromStr for BitRate {
    type Err = UnitError;

    /// `100Mbit`, `1.5Mbit`, `2Mbps` (bits), `2.5MBps` (bytes, x8); k/M/G = 10^3/6/9. A bare
    /// number is refused, as a bit/s it was once read as made 10 bit/s of a mistyped 10Mbit.
    fn from_str(text: &str) -> Result<Self, UnitError> {
        let q = Quantity::Rate;
        let (number, unit) = split_number(text, q)?;
        if unit.is_empty() {
            return Err(UnitError::new(q, text, UnitProblem::MissingUnit));
        }
        let mul = rate_unit(unit).ok_or_else(|| unknown_unit(q, text, unit))?;
        scale(&number, mul, text, q).map(BitRate)
    }
}

/// Bit/s per `unit`. Bits: `bit` in any case, or `bps` with a lower-case `b`. Bytes: `Bps`
/// with an upper-case `B`, the convention sizes follow too (`MB` against `Mb`), times 8. The
/// prefix (none, k, M, G) is case-insensitive.
fn rate_unit(unit: &str) -> Option<u128> {
    let lower = unit.to_ascii_lowercase();
    let (prefix, per_unit) = if let Some(p) = lower.strip_suffix("bit") {
        (p, 1)
    } else if let Some(p) = unit.strip_suffix("bps") {
        (p, 1)
    } else if let Some(p) = unit.strip_suffix("Bps") {
        (p, 8)
    } else {
        return None;
    };
    let prefix: u128 = match prefix.to_ascii_lowercase().as_str() {
        "" => 1,
        "k" => 1_000,
        "m" => 1_000_000,
        "g" => 1_000_000_000,
        _ => return None,
    };
    Some(prefix * per_unit)
}

impl FromStr for Bytes {
    type Err = UnitError;

    /// `1500`, `1500B`, `64KB`, `1.6MB`, `1GB` (SI) and `KiB`, `MiB`, `GiB` (binary). The prefix is
    /// case-insensitive; the `B` must be upper-case, since `b` conventionally means bits.
    fn from_str(text: &str) -> Result<Self, UnitError> {
        let q = Quantity::Size;
        let (number, unit) = split_number(text, q)?;
        if unit.ends_with('b') {
            let known = matches!(
                unit.to_ascii_lowercase().as_str(),
                "b" | "kb" | "mb" | "gb" | "kib" | "mib" | "gib"
            );
            if known {
                return Err(UnitError::new(
                    q,
                    text,
                    UnitProblem::LooksLikeBits(unit.to_string()),
                ));
            }
        }
        let mul: u128 = match unit.to_ascii_lowercase().as_str() {
            "" | "b" => 1,
            "kb" => 1_000,
            "mb" => 1_000_000,
            "gb" => 1_000_000_000,
            "kib" => 1 << 10,
            "mib" => 1 << 20,
            "gib" => 1 << 30,
            _ => return Err(unknown_unit(q, text, unit)),
        };
        scale(&number, mul, text, q).map(Bytes)
    }
}

/// A unit that is not a unit at all (`fast`, `12x3`) reads better as "not a number".
fn unknown_unit(q: Quantity, text: &str, unit: &str) -> UnitError {
    if unit.starts_with(|c: char| c.is_ascii_alphabetic() || c == 'µ')
        && unit.chars().all(|c| c.is_alphabetic() || c == '/')
    {
        UnitError::new(q, text, UnitProblem::UnknownUnit(unit.to_string()))
    } else {
        UnitError::new(q, text, UnitProblem::NotANumber)
    }
}

/// Parse `50ms`, `1.5s`, `2min`, `100us`, `10ns`, `0s`. A unit is required.
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    let q = Quantity::Duration;
    let (number, unit) = split_number(text, q)?;
    let mul: u128 = match unit {
        "" => return Err(UnitError::new(q, text, UnitProblem::MissingUnit)),
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        _ => return Err(unknown_unit(q, text, unit)),
    };
    // Durations are exact to the nanosecond; u64 nanoseconds cover about 584 years.
    let nanos = scale(&number, mul, text, q)?;
    Ok(Duration::from_nanos(nanos))
}

/// Format a duration so that [`parse_duration`] gives it back: `100s`, `1.5s`, `50ms`, `0s`.
pub fn format_duration(d: Duration) -> String {
    let nanos = d.as_nanos();
    let units: [(u128, &str); 3] = [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")];
    for (size, name) in units {
        if nanos >= size {
            return format!("{}{name}", decimal(nanos, size));
        }
    }
    if nanos == 0 {
        return "0s".to_string();
    }
    format!("{nanos}ns")
}

/// `value / unit` as an exact decimal without trailing zeros; `unit` is a power of ten.
fn decimal(value: u128, unit: u128) -> String {
    let int = value / unit;
    let frac = value % unit;
    if frac == 0 {
        return int.to_string();
    }
    let width = unit.ilog10() as usize;
    let digits = format!("{frac:0width$}");
    format!("{int}.{}", digits.trim_end_matches('0'))
}

impl fmt::Display for BitRate {
    /// The largest of `Gbit`, `Mbit`, `kbit`, `bit` that is not above the value: `100Mbit`,
    /// `1.5Mbit`, `999bit`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = u128::from(self.0);
        let units: [(u128, &str); 3] = [
            (1_000_000_000, "Gbit"),
            (1_000_000, "Mbit"),
            (1_000, "kbit"),
        ];
        for (size, name) in units {
            if v >= size {
                return write!(f, "{}{name}", decimal(v, size));
            }
        }
        write!(f, "{v}bit")
    }
}

impl fmt::Display for Bytes {
    /// SI by default (`1.6MB`, `1.5KB`, `999B`); binary when that is shorter (`1MiB`, `64KiB`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = u128::from(self.0);
        let si_units: [(u128, &str); 3] = [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")];
        let si = si_units
            .iter()
            .find(|(size, _)| v >= *size)
            .map(|(size, name)| format!("{}{name}", decimal(v, *size)))
            .unwrap_or_else(|| format!("{v}B"));
        let bin_units: [(u128, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
        let bin = bin_units
            .iter()
            .find(|(size, _)| v >= *size && v % *size == 0)
            .map(|(size, name)| format!("{}{name}", v / *size));
        match bin {
            Some(bin) if bin.len() < si.len() => f.write_str(&bin),
            _ => f.write_str(&si),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rate(s: &str) -> u64 {
        s.parse::<BitRate>().unwrap().0
    }

    fn bytes(s: &str) -> u64 {
        s.parse::<Bytes>().unwrap().0
    }

    #[test]
    fn rates_parse() {
        assert_eq!(rate("100Mbit"), 100_000_000);
        assert_eq!(rate("1.5Mbit"), 1_500_000);
        assert_eq!(rate("2Mbps"), 2_000_000);
        assert_eq!(rate("2mbps"), 2_000_000);
        assert_eq!(rate("10kbit"), 10_000);
        assert_eq!(rate("10KBIT"), 10_000);
        assert_eq!(rate("1Gbit"), 1_000_000_000);
        assert_eq!(rate("2.5gbps"), 2_500_000_000);
        assert_eq!(rate("9600bit"), 9600);
        assert_eq!(rate("9600bps"), 9600);
        assert_eq!(rate("2.5MBps"), 20_000_000);
        assert_eq!(rate("1Bps"), 8);
        assert_eq!(rate("3kBps"), 24_000);
        assert_eq!(rate("1GBps"), 8_000_000_000);
        assert_eq!(rate("10Mbps"), 10_000_000);
        assert_eq!(rate(" 100 Mbit "), 100_000_000);
        assert_eq!(rate(".5Mbit"), 500_000);
        assert_eq!(rate("0bit"), 0);
        assert_eq!(rate("18446744073709551615bit"), u64::MAX);
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(bytes("1500"), 1500);
        assert_eq!(bytes("1500B"), 1500);
        assert_eq!(bytes("1.6MB"), 1_600_000);
        assert_eq!(bytes("64KB"), 64_000);
        assert_eq!(bytes("64kB"), 64_000);
        assert_eq!(bytes("1GB"), 1_000_000_000);
        assert_eq!(bytes("20MiB"), 20 << 20);
        assert_eq!(bytes("1KiB"), 1024);
        assert_eq!(bytes("1.5KiB"), 1536);
        assert_eq!(bytes("2GiB"), 2 << 30);
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("50ms").unwrap(), Duration::from_millis(50));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("2min").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("0.5min").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("100us").unwrap(), Duration::from_micros(100));
        assert_eq!(parse_duration("10ns").unwrap(), Duration::from_nanos(10));
        assert_eq!(parse_duration("0s").unwrap(), Duration::ZERO);
        assert_eq!(parse_duration("1.000000001s").unwrap(), Duration::new(1, 1));
    }

    fn rate_err(s: &str) -> String {
        s.parse::<BitRate>().unwrap_err().to_string()
    }

    fn size_err(s: &str) -> String {
        s.parse::<Bytes>().unwrap_err().to_string()
    }

    fn dur_err(s: &str) -> String {
        parse_duration(s).unwrap_err().to_string()
    }

    #[test]
    fn rate_errors_say_what_is_expected() {
        assert_eq!(
            rate_err("fast"),
            "bad rate \"fast\": expected a number with a unit, such as 100Mbit, 1.5Mbit or 2Mbps"
        );
        assert_eq!(
            rate_err("-5Mbit"),
            "bad rate \"-5Mbit\": a rate must be positive, such as 100Mbit, 1.5Mbit or 2Mbps"
        );
        assert!(rate_err("").contains("it is empty"), "{}", rate_err(""));
        assert!(rate_err("   ").contains("it is empty"));
        assert_eq!(
            rate_err("5Tbit"),
            "bad rate \"5Tbit\": unknown unit \"Tbit\"; expected one of: bit, kbit, Mbit, Gbit, \
             bps, kbps, Mbps, Gbps (bits), Bps, kBps, MBps, GBps (bytes)"
        );
        assert!(rate_err("1.5bit").contains("whole number of bit/s"));
        assert!(rate_err("18446744073709551616bit").contains("too large"));
        // A bare number was once read as bit/s: `--vary rate=10,20` ran 10 bit/s links.
        assert_eq!(
            rate_err("10"),
            "bad rate \"10\": a rate needs a unit (bit, kbit, Mbit, Gbit, bps, kbps, Mbps, Gbps \
             (bits), Bps, kBps, MBps, GBps (bytes)), such as 100Mbit, 1.5Mbit or 2Mbps"
        );
        assert!(
            rate_err("2MBPS").contains("unknown unit"),
            "{}",
            rate_err("2MBPS")
        );
        assert!(rate_err("99999999999Gbit").contains("too large"));
        assert!(rate_err("NaN").contains("expected a number with a unit"));
        assert!(rate_err("inf").contains("expected a number with a unit"));
        assert!(rate_err("1e6").contains("expected a number with a unit"));
        assert!(rate_err("1.Mbit").contains("expected a number"));
        assert!(rate_err("5Mbit/s").contains("unknown unit"));
        assert!(rate_err("1.2.3Mbit").contains("expected a number"));
    }

    #[test]
    fn size_errors_say_what_is_expected() {
        assert!(size_err("-1").contains("a size must be positive"));
        assert!(
            size_err("1.6Mb").contains("means bits"),
            "{}",
            size_err("1.6Mb")
        );
        assert!(size_err("10b").contains("means bits"));
        assert!(size_err("1.5B").contains("whole number of bytes"));
        assert!(size_err("3TB")
            .contains("unknown unit \"TB\"; expected one of: B, KB, MB, GB, KiB, MiB, GiB"));
        assert!(size_err("lots").contains("such as 1500, 64KB, 1.6MB or 20MiB"));
        assert!(size_err("20000000000GB").contains("too large"));
    }

    #[test]
    fn duration_errors_say_what_is_expected() {
        assert_eq!(
            dur_err("100"),
            "bad duration \"100\": a duration needs a unit (ns, us, ms, s, min), such as 50ms, 1.5s or 2min"
        );
        assert!(
            dur_err("-1s").contains("cannot be negative"),
            "{}",
            dur_err("-1s")
        );
        assert!(dur_err("5h").contains("unknown unit \"h\"; expected one of: ns, us, ms, s, min"));
        assert!(dur_err("1.5ns").contains("whole number of nanoseconds"));
        assert!(dur_err("").contains("it is empty"));
        assert!(dur_err("soon").contains("expected a number with a unit"));
        assert!(dur_err("1000000000min").contains("too large"));
        assert!(dur_err("5 MS").contains("unknown unit"));
    }

    #[test]
    fn display_is_human() {
        assert_eq!(BitRate(100_000_000).to_string(), "100Mbit");
        assert_eq!(BitRate(1_500_000).to_string(), "1.5Mbit");
        assert_eq!(BitRate(1_000).to_string(), "1kbit");
        assert_eq!(BitRate(999).to_string(), "999bit");
        assert_eq!(BitRate(0).to_string(), "0bit");
        assert_eq!(BitRate(2_000_000_001).to_string(), "2.000000001Gbit");
        assert_eq!(Bytes(1_600_000).to_string(), "1.6MB");
        assert_eq!(Bytes(1500).to_string(), "1.5KB");
        assert_eq!(Bytes(999).to_string(), "999B");
        assert_eq!(Bytes(0).to_string(), "0B");
        assert_eq!(Bytes(1 << 20).to_string(), "1MiB");
        assert_eq!(Bytes(64 << 10).to_string(), "64KiB");
        assert_eq!(Bytes(1_000_000).to_string(), "1MB");
        assert_eq!(format_duration(Duration::from_secs(100)), "100s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format_duration(Duration::from_millis(50)), "50ms");
        assert_eq!(format_duration(Duration::from_micros(250)), "250us");
        assert_eq!(format_duration(Duration::from_nanos(7)), "7ns");
        assert_eq!(format_duration(Duration::ZERO), "0s");
    }

    proptest! {
        #[test]
        fn rate_round_trips(v in any::<u64>()) {
            prop_assert_eq!(BitRate(v).to_string().parse::<BitRate>(), Ok(BitRate(v)));
        }

        #[test]
        fn round_rates_round_trip(m in 0u64..100_000, e in 0u32..6) {
            let v = BitRate(m * 10u64.pow(e));
            prop_assert_eq!(v.to_string().parse::<BitRate>(), Ok(v));
        }

        #[test]
        fn size_round_trips(v in any::<u64>()) {
            prop_assert_eq!(Bytes(v).to_string().parse::<Bytes>(), Ok(Bytes(v)));
        }

        #[test]
        fn binary_sizes_round_trip(m in 0u64..1_000_000, shift in prop::sample::select(vec![0u32, 10, 20, 30])) {
            let v = Bytes(m << shift);
            prop_assert_eq!(v.to_string().parse::<Bytes>(), Ok(v));
        }

        #[test]
        fn duration_round_trips(nanos in any::<u64>()) {
            let d = Duration::from_nanos(nanos);
            prop_assert_eq!(parse_duration(&format_duration(d)), Ok(d));
        }

        #[test]
        fn garbage_never_panics(s in "\\PC{0,12}") {
            let _ = s.parse::<BitRate>();
            let _ = s.parse::<Bytes>();
            let _ = parse_duration(&s);
        }
    }
}
