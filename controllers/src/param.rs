//! Controller parameters: each config declares its own once, one line each in its `config!`
//! (field, default, help, check), which makes the struct, its `Default`, its setters and its
//! table of `Params::PARAMS`; the registry's listing, its parser of `id:name=value` and its
//! validation all come from that table. The validation functions here are shared by the
//! builders and the registry, so a bad value is the same clear error whichever way it arrives.

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

/// `value` if it is a finite number of at least 1.
pub fn gain(name: &'static str, value: f64) -> Result<f64, ParamError> {
    check(
        name,
        value,
        value.is_finite() && value >= 1.0,
        "a number of at least 1, such as 1.75",
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

/// One typed parameter of a config `C`, declared once in `C`'s table: its name and help for the
/// registry, how its value reads (from a config, so the default shown is `C::default()`'s own
/// and cannot drift from it) and how it is set (through `C`'s own setter, so a value from an id
/// is checked exactly as one from Rust). Written with [`param!`](crate::param::param).
pub(crate) struct Param<C> {
    /// Name as written after `:`, e.g. `tolerance`.
    pub name: &'static str,
    /// One line on what the parameter means and its unit.
    pub help: &'static str,
    pub show: fn(&C) -> String,
    pub set: fn(&mut C, &str) -> Result<(), ParamError>,
}

/// A config whose parameters the registry sets by name.
pub(crate) trait Params: Default + 'static {
    /// Every parameter, in the order listings show them and the registry applies them.
    const PARAMS: &'static [Param<Self>];

    /// Checks the parameters together once all are set, for limits one parameter puts on
    /// another (the registry applies them one at a time, in any combination).
    fn check(&mut self) -> Result<(), ParamError> {
        Ok(())
    }
}

/// A value a parameter takes, as written in a controller id and shown in listings. `show` and
/// `parse` round-trip: writing a default out builds the same config.
pub(crate) trait ParamValue: Sized {
    /// What a value looks like, for the error a value that does not parse gets.
    const EXPECTED: &'static str;
    fn parse(text: &str) -> Option<Self>;
    fn show(&self) -> String;
}

/// Numbers are written and read as Rust writes and reads them.
macro_rules! number_param {
    ($($t:ty => $expected:literal),* $(,)?) => {$(
        impl ParamValue for $t {
            const EXPECTED: &'static str = $expected;
            fn parse(text: &str) -> Option<Self> {
                text.parse().ok()
            }
            fn show(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

number_param!(
    f64 => "a number such as 0.05",
    u64 => "a whole number such as 3",
    u32 => "a whole number below 2^32, such as 2",
);

impl ParamValue for bool {
    const EXPECTED: &'static str = "on or off";
    fn parse(text: &str) -> Option<Self> {
        match text {
            "on" => Some(true),
            "off" => Some(false),
            _ => None,
        }
    }
    fn show(&self) -> String {
        if *self { "on" } else { "off" }.to_owned()
    }
}

impl ParamValue for Duration {
    const EXPECTED: &'static str = "a duration such as 1ms, 500us or 0.01s";
    fn parse(text: &str) -> Option<Self> {
        parse_duration(text)
    }
    /// In the largest unit that keeps it whole, so that it parses back to the same duration.
    fn show(&self) -> String {
        let nanos = self.as_nanos();
        [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)]
            .into_iter()
            .find(|&(_, size)| nanos % size == 0)
            .map_or_else(
                || format!("{nanos}ns"),
                |(unit, size)| format!("{}{unit}", nanos / size),
            )
    }
}

/// `1ms`, `500us`, `0.01s`, `250ns`.
fn parse_duration(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.trim().parse().ok()?;
    let seconds = match unit.trim() {
        "ns" => value / 1e9,
        "us" => value / 1e6,
        "ms" => value / 1e3,
        "s" => value,
        _ => return None,
    };
    Duration::try_from_secs_f64(seconds).ok()
}

/// The words an enum parameter takes, e.g. `word_param!(QueueAim, "short or full", { "short"
/// => QueueAim::Short, "full" => QueueAim::Full })`.
macro_rules! word_param {
    ($type:ty, $expected:literal, { $($word:literal => $value:path),+ $(,)? }) => {
        impl $crate::param::ParamValue for $type {
            const EXPECTED: &'static str = $expected;
            fn parse(text: &str) -> Option<Self> {
                match text {
                    $($word => Some($value),)+
                    _ => None,
                }
            }
            fn show(&self) -> String {
                match self {
                    $($value => $word,)+
                }
                .to_owned()
            }
        }
    };
}

/// One [`Param`] of the config whose `Params` table it stands in, from the field of the same
/// name. `param!(name: Type, "help")` sets it through the config's setter `name`;
/// `param!(name: Type = check, "help")` stores `check("name", value)?` in the field, for types
/// whose `Params::check` builds them whole.
macro_rules! param {
    ($name:ident: $type:ty, $help:literal) => {
        $crate::param::Param {
            name: stringify!($name),
            help: $help,
            show: |config| $crate::param::ParamValue::show(&config.$name),
            set: |config, text| {
                let value = $crate::param::parsed::<$type>(stringify!($name), text)?;
                $crate::param::Applied::applied(config.$name(value))
            },
        }
    };
    ($name:ident: $type:ty = $check:path, $help:literal) => {
        $crate::param::Param {
            name: stringify!($name),
            help: $help,
            show: |config| $crate::param::ParamValue::show(&config.$name),
            set: |config, text| {
                let value = $crate::param::parsed::<$type>(stringify!($name), text)?;
                config.$name = $check(stringify!($name), value)?;
                Ok(())
            },
        }
    };
}

/// Declares a controller's config once: the struct (with the `initial_window` every controller
/// takes), its `Default`, a setter per parameter and the `Params` table the registry lists, parses
/// and validates from. Each parameter is one line under its setter's doc comment, in the order
/// listings show them:
///
/// - `name: Type = default, "help";`: the setter `name(&mut self, Type) -> &mut Self` takes
///   any value;
/// - `name: Type = default, "help", check;`: the setter returns `Result<&mut Self, ParamError>`
///   and stores `check("name", value)?` (a function of `param.rs` or a closure).
///
/// `help` is the line `discern list` shows, and the default it shows is `default` written out.
/// `check_together = path;` after the fields names a `fn(&mut Self) -> Result<(), ParamError>`
/// for limits one parameter puts on another (`Params::check`).
macro_rules! config {
    (
        $(#[doc = $struct_doc:literal])*
        pub struct $config:ident {
            $(
                $(#[doc = $doc:literal])*
                $name:ident: $type:ty = $default:expr, $help:literal $(, $check:expr)?;
            )*
        }
        $(check_together = $together:path;)?
    ) => {
        $(#[doc = $struct_doc])*
        #[derive(Debug, Clone)]
        pub struct $config {
            initial_window: u64,
            ack_eliciting_threshold: $crate::AckElicitingThreshold,
            $($name: $type,)*
        }

        impl Default for $config {
            fn default() -> Self {
                Self {
                    initial_window: $crate::window::DEFAULT_INITIAL_WINDOW,
                    ack_eliciting_threshold: $crate::AckElicitingThreshold::RFC_9000,
                    $($name: $default,)*
                }
            }
        }

        impl $config {
            /// Initial window in bytes (default: RFC 9002's 10 x 1200 bytes, as quinn), at
            /// least two packets of QUIC's smallest size.
            pub fn initial_window(
                &mut self,
                bytes: u64,
            ) -> Result<&mut Self, $crate::param::ParamError> {
                self.initial_window = $crate::param::initial_window(bytes)?;
                Ok(self)
            }

            /// The Ack-Eliciting Threshold the sender asked its receiver for, where it negotiated
            /// ACK frequency (default: RFC 9000's receiver, asked nothing): the frames the
            /// receiver owed at once are credited no ACK Delay.
            pub fn ack_eliciting_threshold(
                &mut self,
                threshold: $crate::AckElicitingThreshold,
            ) -> &mut Self {
                self.ack_eliciting_threshold = threshold;
                self
            }

            $($crate::param::setter!($(#[doc = $doc])* $name: $type $(, $check)?);)*
        }

        impl $crate::param::Params for $config {
            const PARAMS: &'static [$crate::param::Param<Self>] =
                &[$($crate::param::param!($name: $type, $help),)*];

            $(
                fn check(&mut self) -> Result<(), $crate::param::ParamError> {
                    $together(self)
                }
            )?
        }
    };
}

/// One parameter's setter, for `config!`: unchecked, or storing `check("name", value)?`.
macro_rules! setter {
    ($(#[doc = $doc:literal])* $name:ident: $type:ty) => {
        $(#[doc = $doc])*
        pub fn $name(&mut self, value: $type) -> &mut Self {
            self.$name = value;
            self
        }
    };
    ($(#[doc = $doc:literal])* $name:ident: $type:ty, $check:expr) => {
        $(#[doc = $doc])*
        pub fn $name(&mut self, value: $type) -> Result<&mut Self, $crate::param::ParamError> {
            self.$name = ($check)(stringify!($name), value)?;
            Ok(self)
        }
    };
}

pub(crate) use {config, param, setter, word_param};

/// `text` as a `T`, or the error that says what `name` takes.
pub(crate) fn parsed<T: ParamValue>(name: &'static str, text: &str) -> Result<T, ParamError> {
    T::parse(text).ok_or_else(|| ParamError {
        name,
        value: text.to_owned(),
        expected: T::EXPECTED,
    })
}

/// What a setter returns, checked (`Result<&mut C, ParamError>`) or not (`&mut C`).
pub(crate) trait Applied {
    fn applied(self) -> Result<(), ParamError>;
}

impl<C> Applied for &mut C {
    fn applied(self) -> Result<(), ParamError> {
        Ok(())
    }
}

impl<C> Applied for Result<&mut C, ParamError> {
    fn applied(self) -> Result<(), ParamError> {
        self.map(|_| ())
    }
}
