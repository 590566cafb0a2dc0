//! Scenario files (TOML): the typed model and its parser.
//!
//! ```text
//! let s = Scenario::from_file(Path::new("scenarios/errors-only.toml"), &[])?;
//! ```
//! Every error is one line naming the file, line and column (or the `--set` override at fault),
//! the key, what was found and what is expected.

mod controller;
mod error;
mod keys;
mod lies;
mod model;
mod overrides;
mod parse;
mod raw;
mod receiver;
mod reference;
mod setting;
mod trace;

pub use controller::{FlowController, KernelTcp, NoqPeer, KERNEL_TCP_PREFIX};
pub use error::ScenarioError;
pub use lies::{LieLength, LieWhen, LiedDelay, ReceiverLies, ACK_DELAY_EXPONENT, VARINT_MAX};
pub use model::*;
pub use overrides::{Override, OverrideSyntaxError, KEYS as OVERRIDE_KEYS};
pub use parse::{MAX_MTU, MIN_MTU};
pub use receiver::Receiver;
pub use reference::reference as key_reference;
pub use trace::read as read_capacity_trace;

use std::path::Path;

use raw::{At, Lines};

impl Scenario {
    /// Read, override and validate the scenario file at `path`.
    pub fn from_file(path: &Path, overrides: &[Override]) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::read(path, &e))?;
        let base = path.parent().unwrap_or(Path::new(""));
        let mut scenario = parse_toml(&text, &path.display().to_string(), base, overrides)?;
        scenario.source = Some(path.to_path_buf());
        Ok(scenario)
    }

    /// Parse, override and validate scenario text; `origin` names it in messages (a file name).
    /// Files it names (capacity traces) are relative to the current directory.
    pub fn from_toml(
        text: &str,
        origin: &str,
        overrides: &[Override],
    ) -> Result<Scenario, ScenarioError> {
        parse_toml(text, origin, Path::new(""), overrides)
    }

    /// Set the controller of the flows under test (the CLI's `--controller ID`): those marked
    /// `under_test = true`, or when none is, flow 0, the scenario's first `[[flow]]` table and
    /// every copy of its `count` (the same as `--set flow.0.controller=ID`). The other flows,
    /// cross traffic for one, keep their own.
    pub fn set_tested_controller(&mut self, controller: &FlowController) {
        let marked = self.flows.iter().any(|f| f.under_test);
        for (i, flow) in self.flows.iter_mut().enumerate() {
            if flow.under_test || (!marked && i == 0) {
                flow.controller = controller.clone();
            }
        }
    }

    /// Number of flows after `count` expansion.
    pub fn flow_count(&self) -> usize {
        self.flows.iter().map(|f| f.count as usize).sum()
    }
}

/// Parse, override and validate; files the scenario names are relative to `base`.
fn parse_toml(
    text: &str,
    origin: &str,
    base: &Path,
    overrides: &[Override],
) -> Result<Scenario, ScenarioError> {
    let lines = Lines::new(text);
    let doc = toml_edit::ImDocument::parse(text).map_err(|e| {
        let at = e
            .span()
            .map_or(At::File { line: 1, column: 1 }, |s| lines.at(s.start));
        let message = e
            .message()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        error::Diag::new(at, format!("invalid TOML: {message}")).into_error(origin, overrides)
    })?;
    let mut root = raw::from_document(&doc, &lines);
    if root.entries().is_some_and(|e| e.is_empty()) {
        // An empty file is reported as such, whatever the overrides would add.
        return Err(parse::empty(root.at).into_error(origin, overrides));
    }
    overrides::apply(&mut root, overrides).map_err(|d| d.into_error(origin, overrides))?;
    parse::scenario(&root, base).map_err(|d| d.into_error(origin, overrides))
}

#[cfg(test)]
mod tests;
