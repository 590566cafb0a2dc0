//! Errors of scenario files: one line each, saying where, which key, what was found and what is
//! expected.

use super::raw::At;
use super::setting::Override;

/// A scenario that could not be read, parsed or validated. `Display` is the whole message, e.g.
/// `scenarios/x.toml:14:8: link "bottleneck": bad rate "-5Mbit": a rate must be positive, such as
/// 100Mbit, 1.5Mbit or 2Mbps`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    /// A problem at a place in the file (also TOML syntax errors).
    #[error("{origin}:{line}:{column}: {message}")]
    At {
        origin: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// A problem caused by a command-line override (`--set`, or a value of `--vary`).
    #[error("{flag} {key}={value}: {message}")]
    Override {
        flag: &'static str,
        key: String,
        value: String,
        message: String,
    },
}

impl ScenarioError {
    /// The explanation without the location.
    pub fn message(&self) -> &str {
        match self {
            ScenarioError::Read { reason, .. } => reason,
            ScenarioError::At { message, .. } | ScenarioError::Override { message, .. } => message,
        }
    }

    /// Line and column in the file, for errors that have them.
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            ScenarioError::At { line, column, .. } => Some((*line, *column)),
            _ => None,
        }
    }

    pub(crate) fn read(path: &std::path::Path, err: &std::io::Error) -> Self {
        // "No such file or directory (os error 2)" -> "No such file or directory".
        let text = err.to_string();
        let reason = match text.find(" (os error ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        ScenarioError::Read {
            path: path.display().to_string(),
            reason,
        }
    }
}

/// A problem found while applying overrides or validating, before it knows the file name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Diag {
    pub at: At,
    pub message: String,
}

impl Diag {
    pub fn new(at: At, message: impl Into<String>) -> Diag {
        Diag {
            at,
            message: message.into(),
        }
    }

    pub fn into_error(self, origin: &str, overrides: &[Override]) -> ScenarioError {
        match self.at {
            At::File { line, column } => ScenarioError::At {
                origin: origin.to_string(),
                line,
                column,
                message: self.message,
            },
            At::Override(i) => {
                let (flag, key, value) = overrides
                    .get(i)
                    .map(|o| (o.flag, o.key.clone(), o.value.clone()))
                    .unwrap_or(("--set", String::new(), String::new()));
                ScenarioError::Override {
                    flag,
                    key,
                    value,
                    message: self.message,
                }
            }
        }
    }
}

/// Where `at` is, in words, for messages that point at a second place ("already defined at line 4").
pub(crate) fn describe(at: At, overrides_hint: &str) -> String {
    match at {
        At::File { line, .. } => format!("line {line}"),
        At::Override(_) => overrides_hint.to_string(),
    }
}
