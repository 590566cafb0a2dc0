//! `discern clean`: namespaces that killed netns runs left behind.

use std::process::ExitCode;

use anyhow::bail;

use super::CleanArgs;

pub(super) fn clean(args: &CleanArgs) -> anyhow::Result<ExitCode> {
    let done = crate::netns::clean(None, args.all)?;
    if done.removed.is_empty() {
        outln!("nothing to remove")?;
    } else {
        outln!("removed {} namespace(s):", done.removed.len())?;
        for ns in &done.removed {
            outln!("  {ns}")?;
        }
    }
    if !done.kept.is_empty() {
        outln!(
            "kept {} namespace(s) of runs still going (--all removes them too): {}",
            done.kept.len(),
            done.kept.join(", ")
        )?;
    }
    if !done.errors.is_empty() {
        bail!("could not remove: {}", done.errors.join("; "));
    }
    Ok(ExitCode::SUCCESS)
}
