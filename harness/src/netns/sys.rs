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

/// Commands for `ip` or `tc` in one namespace, run by one process reading them on its standard
/// input (`ip -n NS -batch -`). Each `ip` or `tc` process costs a fork and an exec, and netlink
/// set-up: tens of milliseconds under software emulation, where a run's topology takes
/// eighty of them. The lines are argument lists as [`ip`] and [`tc`] take them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    program: &'static str,
    ns: Option<String>,
    lines: Vec<Vec<String>>,
}

impl Batch {
    /// `ip` commands, in namespace `ns` (`None`: the current one).
    pub fn ip(ns: Option<&str>) -> Self {
        Self {
            program: "ip",
            ns: ns.map(str::to_string),
            lines: Vec::new(),
        }
    }

    /// `tc` commands in namespace `ns`.
    pub fn tc(ns: &str) -> Self {
        Self {
            program: "tc",
            ns: Some(ns.to_string()),
            lines: Vec::new(),
        }
    }

    /// Adds one command (the arguments after `ip` or `tc`).
    pub fn push<S: AsRef<str>>(&mut self, args: &[S]) {
        self.lines
            .push(args.iter().map(|a| a.as_ref().to_string()).collect());
    }

    /// The namespace the commands run in (`None`: the current one).
    pub fn namespace(&self) -> Option<&str> {
        self.ns.as_deref()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Runs the commands in order and stops at the first that fails; the error gives that
    /// command line and what the program said. No commands, no process.
    pub fn run(&self) -> anyhow::Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let out = self.spawn(false)?;
        if out.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let failed = failed_lines(&stderr);
        let said = said(&stderr);
        match failed.first().and_then(|&n| self.lines.get(n)) {
            Some(line) => bail!("`{}` failed: {said}", self.command_line(line)),
            None => bail!("`{} -batch -` failed: {said}", self.prefix().join(" ")),
        }
    }

    /// Runs every command whatever fails before it (`-force`); for each, whether it succeeded.
    pub fn run_each(&self) -> anyhow::Result<Vec<bool>> {
        if self.is_empty() {
            return Ok(Vec::new());
        }
        let out = self.spawn(true)?;
        let failed = failed_lines(&String::from_utf8_lossy(&out.stderr));
        Ok((0..self.lines.len())
            .map(|n| !failed.contains(&n))
            .collect())
    }

    fn spawn(&self, force: bool) -> anyhow::Result<std::process::Output> {
        let mut script = String::new();
        for line in &self.lines {
            if let Some(bad) = line.iter().find(|a| !batch_safe(a)) {
                bail!(
                    "`{}`: the argument {bad:?} cannot go through `-batch`, which splits lines \
                     on blanks and quotes",
                    self.command_line(line)
                );
            }
            script.push_str(&line.join(" "));
            script.push('\n');
        }
        let mut args = self.prefix()[1..].to_vec();
        if force {
            args.push("-force".to_string());
        }
        args.extend(["-batch".to_string(), "-".to_string()]);
        let mut child = Command::new(self.program)
            .args(&args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .with_context(|| format!("running `{}`", self.program))?;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        std::io::Write::write_all(&mut stdin, script.as_bytes())
            .with_context(|| format!("writing commands to `{}`", self.program))?;
        drop(stdin);
        child
            .wait_with_output()
            .with_context(|| format!("running `{}`", self.program))
    }

    /// `ip -n NS` or `tc -n NS`.
    fn prefix(&self) -> Vec<String> {
        let mut all = vec![self.program.to_string()];
        all.extend(with_ns(self.namespace(), &[]));
        all
    }

    fn command_line(&self, line: &[String]) -> String {
        let mut all = self.prefix();
        all.extend(line.iter().cloned());
        all.join(" ")
    }
}

/// Whether `arg` reaches `ip` or `tc` as one argument through `-batch`, whose line splitter
/// (iproute2's `makeargs`) splits on blanks, strips quotes and ends a line at `#`.
fn batch_safe(arg: &str) -> bool {
    !arg.is_empty()
        && !arg
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | '#'))
}

/// The lines (from 0) that iproute2's `-batch` reports failed: `Command failed -:N` (from 1).
fn failed_lines(stderr: &str) -> Vec<usize> {
    stderr
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Command failed -:"))
        .filter_map(|n| n.trim().parse::<usize>().ok())
        .filter_map(|n| n.checked_sub(1))
        .collect()
}

/// What the program said, less its `Command failed` lines.
fn said(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.trim().starts_with("Command failed"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("; ")
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

    /// A batch stops at the first command that fails and names it with what `ip` said; forced,
    /// it runs every command and says which failed. Read-only commands in the current namespace
    /// (no root needed); skipped where `ip` is missing, except under `CI=true`.
    #[test]
    fn a_batch_names_the_command_that_failed() {
        if which("ip").is_none() {
            assert!(
                std::env::var("CI").is_err(),
                "`ip` is missing: install iproute2"
            );
            return;
        }
        let mut batch = Batch::ip(None);
        batch.push(&["link", "show", "lo"]);
        batch.push(&["link", "show", "dev", "no-such-dev0"]);
        batch.push(&["link", "show", "lo"]);
        let m = format!("{:#}", batch.run().unwrap_err());
        assert!(
            m.starts_with("`ip link show dev no-such-dev0` failed: "),
            "{m}"
        );
        assert!(m.contains("no-such-dev0"), "what ip said: {m}");
        assert_eq!(batch.run_each().unwrap(), [true, false, true]);
        assert!(Batch::ip(None).run_each().unwrap().is_empty());
    }

    #[test]
    fn arguments_that_a_batch_line_would_split_are_refused() {
        for bad in ["two words", "", "a#b", "\"q\""] {
            let mut batch = Batch::tc("ns");
            batch.push(&["qdisc", "show", "dev", bad]);
            let m = format!("{:#}", batch.run().unwrap_err());
            assert!(m.contains("cannot go through `-batch`"), "{bad:?}: {m}");
        }
        assert!(batch_safe("10.0.0.1/30") && batch_safe("drop/pipe") && batch_safe("1000000bit"));
    }

    #[test]
    fn failed_batch_lines_are_read_from_what_iproute2_prints() {
        let stderr =
            "Cannot find device \"x\"\nCommand failed -:2\nError: oops.\nCommand failed -:5\n";
        assert_eq!(failed_lines(stderr), [1, 4]);
        assert_eq!(said(stderr), "Cannot find device \"x\"; Error: oops.");
    }
}
