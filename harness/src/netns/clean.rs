//! `discern clean`: removes what runs killed without a chance to clean up left behind. A run's
//! namespaces hold everything else it made (veths, TUN and ifb devices, qdiscs, sockets), so
//! deleting them is enough. Namespaces of a run whose process is still alive are kept unless
//! `all`.

use std::path::Path;

use super::names;
use super::sys;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Cleaned {
    pub removed: Vec<String>,
    /// Namespaces of runs still alive, left alone.
    pub kept: Vec<String>,
    pub errors: Vec<String>,
}

fn alive(pid: u32) -> bool {
    pid != std::process::id() && Path::new(&format!("/proc/{pid}")).exists()
}

/// Deletes every namespace whose name starts with the project prefix (or `prefix`, if given),
/// except those of live runs unless `all`.
pub fn clean(prefix: Option<&str>, all: bool) -> anyhow::Result<Cleaned> {
    sys::preflight()?;
    let want = prefix.unwrap_or(names::PROJECT_PREFIX);
    let mut out = Cleaned::default();
    for ns in sys::namespaces() {
        if !ns.starts_with(want) || !ns.starts_with(names::PROJECT_PREFIX) {
            continue;
        }
        if !all && names::owner_pid(&ns).is_some_and(alive) {
            out.kept.push(ns);
            continue;
        }
        match sys::delete_namespace(&ns) {
            Ok(()) => out.removed.push(ns),
            Err(e) => out.errors.push(format!("{ns}: {e:#}")),
        }
    }
    Ok(out)
}
