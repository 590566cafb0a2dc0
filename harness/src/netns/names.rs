//! Names of everything a run creates. Every namespace of a run starts with the run's prefix,
//! `dsc<pid in hex>r<counter>`, so two runs (in one process or in two) never collide, `discern
//! clean` can find what a killed run left by the project prefix `dsc`, and can tell from the pid
//! whether the run that made it is still alive. Interfaces live only inside the run's own
//! namespaces, so their names are short and fixed per role.

use std::sync::atomic::{AtomicU32, Ordering};

/// What every namespace of every run starts with.
pub const PROJECT_PREFIX: &str = "dsc";

/// Linux's limit on interface names (IFNAMSIZ - 1).
pub const MAX_IFNAME: usize = 15;

/// The prefix of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunPrefix(String);

impl RunPrefix {
    /// A prefix no other run on this machine has: this process's id and a per-process counter.
    pub fn unique() -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        Self::new(std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
    }

    pub fn new(pid: u32, counter: u32) -> Self {
        Self(format!("{PROJECT_PREFIX}{pid:x}r{counter}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The namespace of router `k`.
    pub fn router(&self, k: usize) -> String {
        format!("{}-h{k}", self.0)
    }

    /// The namespace of flow `i`'s sender.
    pub fn sender(&self, i: usize) -> String {
        format!("{}-s{i}", self.0)
    }

    /// The namespace of flow `i`'s receiver.
    pub fn receiver(&self, i: usize) -> String {
        format!("{}-d{i}", self.0)
    }
}

/// The pid a namespace name was made by, if it is one of ours.
pub fn owner_pid(namespace: &str) -> Option<u32> {
    let rest = namespace.strip_prefix(PROJECT_PREFIX)?;
    let hex = &rest[..rest.find('r')?];
    u32::from_str_radix(hex, 16).ok()
}

/// Interface names inside a namespace: the end of link `l` in its head or tail router.
pub fn link_if(l: usize) -> String {
    format!("l{l}")
}

/// The `ifb` device through which the end of link `l` in a router receives: the channel loss
/// and the delay of the direction it receives act there (the tc engine).
pub fn ifb_if(l: usize) -> String {
    format!("i{l}")
}

/// The `ifb` device the probe of the kernel's shaping adds and deletes again.
pub const PROBE_IFB: &str = "pifb";

/// The router's end of flow `i`'s sender (`s`) or receiver (`d`) attachment.
pub fn access_if(role: char, i: usize) -> String {
    format!("{role}{i}")
}

/// The host's own end of its attachment (in a sender or receiver namespace).
pub const HOST_IF: &str = "e0";

/// Whether `name` is a valid Linux interface name.
pub fn valid_ifname(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_IFNAME
        && name != "."
        && name != ".."
        && !name
            .chars()
            .any(|c| c == '/' || c == ':' || c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_distinct_and_parse_back() {
        let a = RunPrefix::unique();
        let b = RunPrefix::unique();
        assert_ne!(a, b);
        assert!(a.as_str().starts_with(PROJECT_PREFIX));
        assert_eq!(owner_pid(&a.router(3)), Some(std::process::id()));
        let p = RunPrefix::new(0xffff_ffff, 4_000_000_000);
        assert_eq!(owner_pid(&p.sender(65_535)), Some(0xffff_ffff));
        assert_eq!(owner_pid("dscfoo"), None);
        assert_eq!(owner_pid("other"), None);
    }

    #[test]
    fn interface_names_fit_the_kernel_limit() {
        // The largest indices a scenario may have (65536 flows, links likewise).
        for name in [
            link_if(65_535),
            ifb_if(65_535),
            access_if('s', 65_535),
            access_if('d', 0),
            PROBE_IFB.to_string(),
        ] {
            assert!(valid_ifname(&name), "{name}");
        }
        assert!(valid_ifname(HOST_IF));
        assert!(!valid_ifname("sixteen-chars-xx"));
        assert!(!valid_ifname("a/b"));
        assert!(!valid_ifname(""));
    }
}
