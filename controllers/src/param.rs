//! Validation of controller parameters, shared by the builders and the registry, so a bad value
//! is the same clear error whichever way it arrives.

use std::error::Error;
use std::fmt;
use std::time::Duration;

/// A parameter value a controller cannot run with.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamError {
    /// The parameter's name, as the registry spells it (`beta`, `alpha`, ...).
    pub name: &'static str,
    /// The rejected value, as text.
    pub value: String,
    /// What would have been accepted, e.g. "a number above 0 and below 1, such as 0.5".
    pub expected: &'static str,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad {} {}: expected {}",
            self.name, self.value, self.expected
        )
    }
}

impl Error for ParamError {}

/// `value` if it is a finite number strictly between 0 and 1.
pub fn open_fraction(name: &'static str, value: f64) -> Result<f64, ParamError> {
    check(
        name,
        value,
        value.is_finite() && value > 0.0 && value < 1.0,
        "a number above 0 and below 1, such as 0.5",
    )
}

/// `value` if it is a finite number from 0 to 1.
pub fn fraction(name: &'static str, value: f64) -> Result<f64, ParamError> {
    check(
        name,
        value,
        value.is_finite() && (0.0..=1.0).contains(&value),
        "a number from 0 to 1, such as 0.05",
    )
}

/// `value` if it is a finite number of at least 0.
pub fn non_negative(name: &'static str, value: f64) -> Result<f64, ParamError> {
    check(
        name,
        value,
        value.is_finite() && value >= 0.0,
        "a number of at least 0, such as 3",
    )
}

/// `value` if it is a finite number above 0 and at most 1.
pub fn factor(name: &'static str, value: f64) -> Result<f64, ParamError> {
    check(
        name,
        value,
        value.is_finite() && value > 0.0 && value <= 1.0,
        "a number above 0 and at most 1, such as 0.75",
    )
}

/// `value` if it is at least `least`; `expected` says so to a user.
pub fn at_least(
    name: &'static str,
    value: u64,
    least: u64,
    expected: &'static str,
) -> Result<u64, ParamError> {
    check(name, value, value >= least, expected)
}

/// An initial window of `bytes` if it holds at least two packets of QUIC's smallest size.
pub fn initial_window(bytes: u64) -> Result<u64, ParamError> {
    at_least(
        "initial_window",
        bytes,
        2 * 1200,
        "a number of bytes of at least 2400 (two 1200-byte packets)",
    )
}

/// `value` if it is longer than zero.
pub fn positive_duration(name: &'static str, value: Duration) -> Result<Duration, ParamError> {
    if value.is_zero() {
        return Err(ParamError {
            name,
            value: format!("{value:?}"),
            expected: "a duration longer than 0, such as 10s",
        });
    }
    Ok(value)
}

fn check<T: std::fmt::Display>(
    name: &'static str,
    value: T,
    ok: bool,
    expected: &'static str,
) -> Result<T, ParamError> {
    if ok {
        Ok(value)
    } else {
        Err(ParamError {
            name,
            value: value.to_string(),
            expected,
        })
    }
}
