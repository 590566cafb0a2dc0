//! One `--set KEY=VALUE` as the command line gives it, before it is applied (`overrides.rs`):
//! what the errors of a scenario name, apart from the code that applies it.

use std::fmt;
use std::str::FromStr;

/// One `KEY=VALUE` override. Keys: `name`, `description`, `duration`, `seed`, `mtu`,
/// `link.NAME.FIELD`, `flow.INDEX.FIELD` and `flow.*.FIELD` (see [`super::OVERRIDE_KEYS`]). The value is read as
/// TOML if it is a TOML value (`0.01`, `"10ms"`, `["a", "b"]`), else taken as a bare string
/// (`10ms`, `composite`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    pub key: String,
    pub value: String,
    /// The command-line flag the value came from (`--set`, or `--vary` for one of a sweep's
    /// values), which an error in the value names.
    pub flag: &'static str,
}

impl Override {
    /// One value of a sweep's `--vary KEY=V1,V2,...`.
    pub fn varied(key: &str, value: &str) -> Self {
        Override {
            key: key.to_string(),
            value: value.to_string(),
            flag: "--vary",
        }
    }
}

/// A command-line argument that is not `KEY=VALUE`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--set {text:?}: expected KEY=VALUE, such as link.bottleneck.rate=10Mbit or flow.*.controller=composite")]
pub struct OverrideSyntaxError {
    pub text: String,
}

impl FromStr for Override {
    type Err = OverrideSyntaxError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = || OverrideSyntaxError {
            text: text.to_string(),
        };
        let (key, value) = text.split_once('=').ok_or_else(err)?;
        let key = key.trim();
        if key.is_empty() {
            return Err(err());
        }
        Ok(Override {
            key: key.to_string(),
            value: value.to_string(),
            flag: "--set",
        })
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key, self.value)
    }
}
