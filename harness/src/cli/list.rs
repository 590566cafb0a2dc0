//! `discern list`: the registry's controllers and the scenarios in a folder.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::output::table;
use crate::scenario::Scenario;

pub(super) fn list(scenarios_dir: &Path) -> anyhow::Result<ExitCode> {
    let catalog = quinn_discern::registry::catalog();
    outln!("Controllers (--controller ID, ID:param=value,param=value, or CLASSIFIER+ID):")?;
    let width = catalog.iter().map(|c| c.id.len()).max().unwrap_or(0);
    for c in catalog {
        let tag = if c.classifier { " [classifier]" } else { "" };
        outln!("  {:width$}  {}{tag}", c.id, c.summary)?;
        for p in c.params {
            outln!("  {:width$}    {} = {}: {}", "", p.name, p.default, p.help)?;
        }
    }
    outln!()?;
    outln!(
        "Peers from another QUIC stack ({}; sender and receiver both noq, either runner):",
        crate::noq::SOURCE
    )?;
    for p in crate::noq::NoqPeer::ALL {
        outln!("  {:width$}  {}", p.id(), p.summary())?;
    }
    outln!()?;
    outln!("Scenarios in {}/:", scenarios_dir.display())?;
    let mut files: Vec<PathBuf> = match std::fs::read_dir(scenarios_dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect(),
        Err(_) => {
            outln!("  (none: no {}/ here)", scenarios_dir.display())?;
            return Ok(ExitCode::SUCCESS);
        }
    };
    files.sort();
    let mut t = table::TextTable::new(["file", "name", "description"]);
    for f in &files {
        let file = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match Scenario::from_file(f, &[]) {
            Ok(s) => t.push(vec![file, s.name, s.description]),
            Err(e) => t.push(vec![
                file,
                "(error)".into(),
                e.to_string().lines().next().unwrap_or_default().to_string(),
            ]),
        }
    }
    for line in t.render().lines() {
        outln!("  {line}")?;
    }
    Ok(ExitCode::SUCCESS)
}
