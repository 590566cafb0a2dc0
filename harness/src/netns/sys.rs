//! The system calls and commands the runner needs: the checks made before anything is created,
//! running `ip` and `tc`, and doing work inside a named network namespace.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, bail, Context};

/// Where `ip netns` keeps its named namespaces.
pub const NETNS_DIR: &str = "/var/run/netns";

/// The first `name` on `PATH` (or the usual system folders), if any.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Root, `ip` and `tc`: checked before the runner creates anything, with the fix in the message.
pub fn preflight() -> anyhow::Result<()> {
    if !is_root() {
        bail!(
            "--link netns creates network namespaces and needs root: run as root, e.g. \
             `sudo discern run SCENARIO --link netns` (or use --link sim, which needs nothing)"
        );
    }
    for tool in ["ip", "tc"] {
        if which(tool).is_none() {
            bail!("--link netns needs `{tool}`, which is not on PATH: install iproute2 (e.g. `apt-get install iproute2`)");
        }
    }
    Ok(())
}

/// Whether the user-space link engine can run (it needs TUN devices).
pub fn check_tun() -> anyhow::Result<()> {
    if !Path::new("/dev/net/tun").exists() {
        bail!("this kernel lacks sch_netem and /dev/net/tun is missing, so no engine can shape the links: load the tun module (`modprobe tun`) or sch_netem (`modprobe sch_netem`)");
    }
    Ok(())
}

/// Runs `program args...`; its stdout, or an error with the command line and its stderr.
pub fn run(program: &str, args: &[String]) -> anyhow::Result<String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .with_context(|| format!("running `{program}`"))?;
    if !out.status.success() {
        bail!(
            "`{program} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `ip -n NS args...` (`ns` None: the current namespace).
pub fn ip(ns: Option<&str>, args: &[&str]) -> anyhow::Result<String> {
    run("ip", &with_ns(ns, args))
}

/// `tc -n NS args...`.
pub fn tc(ns: &str, args: &[String]) -> anyhow::Result<String> {
    let mut all = vec!["-n".to_string(), ns.to_string()];
    all.extend(args.iter().cloned());
    run("tc", &all)
}

fn with_ns(ns: Option<&str>, args: &[&str]) -> Vec<String> {
    let mut all = Vec::with_capacity(args.len() + 2);
    if let Some(ns) = ns {
        all.push("-n".to_string());
        all.push(ns.to_string());
    }
    all.extend(args.iter().map(|s| s.to_string()));
    all
}

/// Runs `f` on a fresh thread that has joined the network namespace `ns`. Sockets and devices
/// it creates stay in that namespace when handed back.
pub fn in_netns<T, F>(ns: &str, f: F) -> anyhow::Result<T>
where
    T: Send,
    F: FnOnce() -> anyhow::Result<T> + Send,
{
    let path = Path::new(NETNS_DIR).join(ns);
    let file = File::open(&path).with_context(|| format!("opening {}", path.display()))?;
    std::thread::scope(|s| {
        s.spawn(move || {
            // SAFETY: a valid namespace fd; setns changes only this thread's namespace.
            if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                return Err(anyhow!(
                    "entering network namespace {ns}: {}",
                    std::io::Error::last_os_error()
                ));
            }
            f()
        })
        .join()
        .map_err(|_| anyhow!("a thread in namespace {ns} panicked"))?
    })
}

/// Writes a sysctl of the current thread's network namespace, e.g. `net/ipv4/ip_forward`.
pub fn sysctl(key: &str, value: &str) -> anyhow::Result<()> {
    let path = Path::new("/proc/sys").join(key);
    std::fs::write(&path, value).with_context(|| format!("writing {}", path.display()))
}

/// Names in `NETNS_DIR`.
pub fn namespaces() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(NETNS_DIR) else {
        return Vec::new();
    };
    let mut v: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Deletes a named namespace; already gone is fine.
pub fn delete_namespace(ns: &str) -> anyhow::Result<()> {
    if !Path::new(NETNS_DIR).join(ns).exists() {
        return Ok(());
    }
    ip(None, &["netns", "del", ns]).map(|_| ())
}

/// SIGINT and SIGTERM, handled from creation on so that either ends a run through its clean-up.
pub struct Signals {
    sigint: tokio::signal::unix::Signal,
    sigterm: tokio::signal::unix::Signal,
}

impl Signals {
    pub fn handle() -> anyhow::Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Self {
            sigint: signal(SignalKind::interrupt()).context("handling SIGINT")?,
            sigterm: signal(SignalKind::terminate()).context("handling SIGTERM")?,
        })
    }

    /// Waits for either signal; the error to end the run with.
    pub async fn ended(&mut self) -> anyhow::Error {
        tokio::select! {
            _ = self.sigint.recv() => anyhow!("interrupted (SIGINT); the run's namespaces were removed"),
            _ = self.sigterm.recv() => anyhow!("terminated (SIGTERM); the run's namespaces were removed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_flag_goes_first() {
        assert_eq!(
            with_ns(Some("x"), &["link", "show"]),
            vec!["-n", "x", "link", "show"]
        );
        assert_eq!(with_ns(None, &["netns", "list"]), vec!["netns", "list"]);
    }

    #[test]
    fn failed_commands_say_what_failed() {
        let e = run("sh", &["-c".into(), "echo oops >&2; exit 3".into()]).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("sh -c") && m.contains("oops"), "{m}");
        assert!(which("sh").is_some());
        assert!(which("surely-not-a-tool-xyz").is_none());
    }
}
