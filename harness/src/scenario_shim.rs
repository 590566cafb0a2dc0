//! TEMPORARY: the scenario parser's entry points, reduced to what the CLI needs, until the parser
//! lands. Reads only `name`, `description`, `seed` and the flows' `controller`/`count`.
//! Delete this file (and its `mod` line) once `Scenario::from_file` exists.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use crate::scenario::{Flow, Scenario};

/// `--set K=V`.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    pub key: String,
    pub value: String,
}

#[derive(Debug)]
pub struct ScenarioError(String);

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScenarioError {}

impl FromStr for Override {
    type Err = ScenarioError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok(Override {
                key: k.trim().to_string(),
                value: v.trim().to_string(),
            }),
            _ => Err(ScenarioError(format!(
                "bad override `{s}`: expected KEY=VALUE"
            ))),
        }
    }
}

impl Scenario {
    pub fn from_file(path: &Path, overrides: &[Override]) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ScenarioError(format!("{}: {e}", path.display())))?;
        let mut table: toml::Table = text
            .parse()
            .map_err(|e| ScenarioError(format!("{}: {e}", path.display())))?;
        for o in overrides {
            table.insert(o.key.clone(), toml::Value::String(o.value.clone()));
        }
        let str_of = |k: &str| table.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let name = str_of("name")
            .ok_or_else(|| ScenarioError(format!("{}: missing `name`", path.display())))?;
        let flows = table
            .get("flow")
            .and_then(|f| f.as_array())
            .map(|a| {
                a.iter()
                    .map(|f| Flow {
                        controller: f
                            .get("controller")
                            .and_then(|c| c.as_str())
                            .unwrap_or("newreno")
                            .to_string(),
                        path: vec![],
                        start: Duration::ZERO,
                        bytes: None,
                        count: f.get("count").and_then(|c| c.as_integer()).unwrap_or(1) as u32,
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Scenario {
            name,
            description: str_of("description").unwrap_or_default(),
            duration: Duration::from_secs(10),
            seed: table.get("seed").and_then(|s| s.as_integer()).unwrap_or(1) as u64,
            mtu: 1500,
            links: vec![],
            flows,
            source: Some(path.to_path_buf()),
        })
    }

    pub fn set_controller(&mut self, id: &str) {
        for f in &mut self.flows {
            f.controller = id.to_string();
        }
    }

    pub fn flow_count(&self) -> usize {
        self.flows.iter().map(|f| f.count as usize).sum()
    }
}
