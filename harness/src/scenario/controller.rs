//! A flow's congestion controller, resolved once from its id when the scenario loads: the
//! runners, the CLI and the scoreboard take this type, and no id string is parsed after loading
//! (ARCHITECTURE.md, "One way through the harness").

use std::fmt;
use std::str::FromStr;

use quinn_discern::registry::{self, ControllerSpec, ParseError};

/// The prefix of the kernel TCP ids: `tcp-cubic` is the kernel's `cubic`.
pub const KERNEL_TCP_PREFIX: &str = "tcp-";

/// What runs a flow's sender.
#[derive(Debug, Clone)]
pub enum FlowController {
    /// A controller of the library's registry (`newreno`, `discern:queue=full`,
    /// `composite+quinn-cubic`, ...), run by quinn in either runner.
    Quic(ControllerSpec),
    /// The kernel's TCP with one of its congestion controls, as a reference beside QUIC flows;
    /// only the netns runner has a kernel to run it.
    KernelTcp(KernelTcp),
    /// A controller of another QUIC stack (`noq-bbr3`, `noq-cubic`): a noq sender and a noq
    /// receiver, in either runner.
    Noq(NoqPeer),
}

/// A kernel TCP controller id, `tcp-NAME`. Whether the kernel offers NAME is the netns runner's
/// to check: it depends on the machine, not on the scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelTcp {
    id: String,
}

impl KernelTcp {
    /// The id as written, e.g. `tcp-cubic`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The kernel's name of the congestion control, e.g. `cubic`.
    pub fn name(&self) -> &str {
        &self.id[KERNEL_TCP_PREFIX.len()..]
    }
}

impl FlowController {
    /// Resolves `id` (trimmed): a kernel TCP id, a noq peer, or one the registry knows.
    pub fn parse(id: &str) -> Result<Self, ParseError> {
        let id = id.trim();
        if let Some(peer) = NoqPeer::parse(id) {
            return Ok(FlowController::Noq(peer));
        }
        match id.strip_prefix(KERNEL_TCP_PREFIX) {
            Some(name) if !name.is_empty() => {
                Ok(FlowController::KernelTcp(KernelTcp { id: id.to_owned() }))
            }
            _ => registry::parse(id).map(FlowController::Quic),
        }
    }

    /// The id as written (trimmed), which names the flow in every output.
    pub fn id(&self) -> &str {
        match self {
            FlowController::Quic(spec) => spec.id(),
            FlowController::KernelTcp(tcp) => tcp.id(),
            FlowController::Noq(peer) => peer.id(),
        }
    }

    /// The kernel TCP controller, if the flow runs one.
    pub fn kernel_tcp(&self) -> Option<&KernelTcp> {
        match self {
            FlowController::KernelTcp(tcp) => Some(tcp),
            FlowController::Quic(_) | FlowController::Noq(_) => None,
        }
    }

    /// The noq peer, if the flow runs one.
    pub fn noq(&self) -> Option<NoqPeer> {
        match self {
            FlowController::Noq(peer) => Some(*peer),
            FlowController::Quic(_) | FlowController::KernelTcp(_) => None,
        }
    }
}

/// Two controllers are the same when their ids are: an id builds one configuration.
impl PartialEq for FlowController {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

impl Eq for FlowController {}

/// A controller is its id: `flow.controller == "newreno"`.
impl PartialEq<str> for FlowController {
    fn eq(&self, id: &str) -> bool {
        self.id() == id
    }
}

impl PartialEq<&str> for FlowController {
    fn eq(&self, id: &&str) -> bool {
        self.id() == *id
    }
}

impl fmt::Display for FlowController {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for FlowController {
    type Err = ParseError;

    fn from_str(id: &str) -> Result<Self, Self::Err> {
        FlowController::parse(id)
    }
}

/// Written as its id (a sweep's or a scoreboard's manifest), and read back by resolving it.
impl serde::Serialize for FlowController {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> serde::Deserialize<'de> for FlowController {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        FlowController::parse(&id).map_err(serde::de::Error::custom)
    }
}

/// A congestion controller of noq's, run by a noq endpoint pair (`crate::noq` builds it): the
/// name a scenario gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoqPeer {
    /// `noq_proto::congestion::Bbr3`.
    Bbr3,
    /// `noq_proto::congestion::Cubic`, a control: what the glue changes shows against
    /// `quinn-cubic`.
    Cubic,
}

impl NoqPeer {
    /// Every peer, in the order listings show them.
    pub const ALL: [NoqPeer; 2] = [NoqPeer::Bbr3, NoqPeer::Cubic];

    /// The id a scenario names it by.
    pub fn id(self) -> &'static str {
        match self {
            NoqPeer::Bbr3 => "noq-bbr3",
            NoqPeer::Cubic => "noq-cubic",
        }
    }

    /// One line on what it is, for listings.
    pub fn summary(self) -> &'static str {
        match self {
            NoqPeer::Bbr3 => "noq's BBRv3 (draft-ietf-ccwg-bbr-06), sender and receiver on noq",
            NoqPeer::Cubic => "noq's CUBIC, sender and receiver on noq (a control for the glue)",
        }
    }

    /// The peer `id` names (trimmed), if it names one.
    pub fn parse(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.id() == id.trim())
    }
}

impl fmt::Display for NoqPeer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_nothing_else_parses() {
        for p in NoqPeer::ALL {
            assert_eq!(NoqPeer::parse(&format!(" {} ", p.id())), Some(p));
        }
        assert_eq!(NoqPeer::parse("noq-bbr"), None);
        assert_eq!(NoqPeer::parse("quinn-bbr"), None);
    }

    #[test]
    fn ids_resolve_once_to_a_quic_or_a_kernel_controller() {
        let tcp = FlowController::parse(" tcp-cubic ").unwrap();
        assert_eq!(tcp.kernel_tcp().map(KernelTcp::name), Some("cubic"));
        assert_eq!(tcp.id(), "tcp-cubic");
        let quic = FlowController::parse("modified-sack:tolerance=0.02").unwrap();
        assert!(
            matches!(&quic, FlowController::Quic(s) if s.id() == "modified-sack:tolerance=0.02")
        );
        assert_eq!(quic.to_string(), "modified-sack:tolerance=0.02");
        assert_eq!(
            quic,
            "modified-sack:tolerance=0.02"
                .parse::<FlowController>()
                .unwrap()
        );
        // A bare prefix names no kernel controller; the registry says what it knows.
        let e = FlowController::parse("tcp-").unwrap_err().to_string();
        assert!(e.contains("tcp-"), "{e}");
        assert!(FlowController::parse("no-such").is_err());
        let noq = FlowController::parse(" noq-bbr3").unwrap();
        assert_eq!(noq.noq(), Some(NoqPeer::Bbr3));
        assert_eq!(noq.id(), "noq-bbr3");
        assert!(noq.kernel_tcp().is_none());
        assert_eq!(
            FlowController::parse("noq-cubic").unwrap().noq(),
            Some(NoqPeer::Cubic)
        );
    }
}
