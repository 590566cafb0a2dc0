//! Which runner executes a scenario: the deterministic simulator or network namespaces.

use std::fmt;
use std::str::FromStr;

use anyhow::{anyhow, bail};

use crate::report::RunOutput;
use crate::scenario::Scenario;
use crate::sim::PacketProtection;
use crate::transport::Qlog;

/// What carries the packets of a run (`--link`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkKind {
    /// Discrete-event simulator in virtual time (no root, no network).
    #[default]
    Sim,
    /// Real sockets in Linux network namespaces shaped with `tc` (root).
    Netns,
}

impl LinkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::Sim => "sim",
            LinkKind::Netns => "netns",
        }
    }
}

impl fmt::Display for LinkKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LinkKind {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "sim" => Ok(LinkKind::Sim),
            "netns" => Ok(LinkKind::Netns),
            other => Err(anyhow!(
                "unknown link kind `{other}` (expected sim or netns)"
            )),
        }
    }
}

/// Runs `scenario` on the runner `kind` stands for, the simulator with null packet protection.
pub fn run(scenario: &Scenario, kind: LinkKind) -> anyhow::Result<RunOutput> {
    run_with(scenario, kind, PacketProtection::Null)
}

/// [`run`] with the simulator's packets sealed by `protection`; netns runs always seal them with
/// real ciphers.
pub fn run_with(
    scenario: &Scenario,
    kind: LinkKind,
    protection: PacketProtection,
) -> anyhow::Result<RunOutput> {
    run_with_qlog(scenario, kind, protection, None)
}

/// [`run_with`], each flow's endpoints writing a qlog trace into `qlog` when it is given: in
/// virtual time on the simulator, in real time in namespaces.
pub fn run_with_qlog(
    scenario: &Scenario,
    kind: LinkKind,
    protection: PacketProtection,
    qlog: Option<&Qlog>,
) -> anyhow::Result<RunOutput> {
    match kind {
        LinkKind::Sim => {
            if let Some(tcp) = scenario
                .flows
                .iter()
                .find_map(|f| f.controller.kernel_tcp())
            {
                bail!(
                    "{} runs only with --link netns (it is the kernel's TCP)",
                    tcp.id()
                );
            }
            Ok(crate::sim::run_with_qlog(scenario, protection, qlog)?)
        }
        LinkKind::Netns => {
            let options = crate::netns::Options {
                qlog: qlog.cloned(),
                ..Default::default()
            };
            crate::netns::run_with(scenario, &options)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_kind_parses_and_prints() {
        assert_eq!("sim".parse::<LinkKind>().unwrap(), LinkKind::Sim);
        assert_eq!("netns".parse::<LinkKind>().unwrap(), LinkKind::Netns);
        assert!("tc".parse::<LinkKind>().is_err());
        assert_eq!(LinkKind::Netns.to_string(), "netns");
    }

    #[test]
    fn kernel_tcp_ids_need_netns() {
        let mut s = crate::scenario::Scenario::from_toml(
            "name = \"t\"\ndescription = \"t\"\nduration = \"1s\"\n[[link]]\nname = \"b\"\nrate = \"10Mbit\"\ndelay = \"5ms\"\nqueue = 10\n[[flow]]\ncontroller = \"newreno\"\npath = [\"b\"]\n",
            "t",
            &[],
        )
        .unwrap();
        s.set_tested_controller(&"tcp-cubic".parse().unwrap());
        let e = run(&s, LinkKind::Sim).unwrap_err().to_string();
        assert!(e.contains("tcp-cubic runs only with --link netns"), "{e}");
    }

    #[test]
    fn a_foreign_receiver_needs_netns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s2n.toml");
        std::fs::write(
            &path,
            "name = \"t\"\ndescription = \"t\"\nduration = \"1s\"\n[[link]]\nname = \"b\"\nrate = \"10Mbit\"\ndelay = \"5ms\"\nqueue = 10\n[[flow]]\ncontroller = \"newreno\"\npath = [\"b\"]\nreceiver = \"s2n-quic\"\n",
        )
        .unwrap();
        let s = crate::scenario::Scenario::from_file(&path, &[]).unwrap();
        let e = run(&s, LinkKind::Sim).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "scenario: {}: flow 0: receiver = \"s2n-quic\" runs in network namespaces only \
                 (--link netns, as root); the simulator hosts quinn receivers alone",
                path.display()
            )
        );
    }
}
