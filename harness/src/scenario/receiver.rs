//! A flow's receiving endpoint, resolved once from the `receiver` key when the scenario loads,
//! as the controller is (`controller.rs`): the runners match on this type, never on the text.
//!
//! Every controller reads its path from the receiver's ACKs, and stacks acknowledge differently.
//! quinn acknowledges every second ack-eliciting packet and holds a lone one for up to 25 ms;
//! s2n-quic acknowledges every tenth, or after its 25 ms `max_ack_delay`
//! (`s2n-quic-transport/src/ack/ack_manager.rs`, `packet_tolerance = 10`;
//! `s2n-quic-core/src/transport/parameters/mod.rs`, `MaxAckDelay` 25), and implements no ACK
//! frequency extension, so a sender cannot ask it for anything else.

use std::fmt;

/// The stack that runs a flow's receiving endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Receiver {
    /// quinn, in both runners; the only one the simulator hosts.
    #[default]
    Quinn,
    /// AWS s2n-quic with its default TLS (s2n-tls), in network namespaces only.
    S2nQuic,
}

impl Receiver {
    /// Every receiver, in the order messages list them.
    pub const ALL: [Receiver; 2] = [Receiver::Quinn, Receiver::S2nQuic];

    /// The name a scenario writes, e.g. `s2n-quic`.
    pub fn id(self) -> &'static str {
        match self {
            Receiver::Quinn => "quinn",
            Receiver::S2nQuic => "s2n-quic",
        }
    }

    /// The receiver named `id` (trimmed, any case).
    pub fn parse(id: &str) -> Option<Receiver> {
        let id = id.trim();
        Self::ALL
            .into_iter()
            .find(|r| r.id().eq_ignore_ascii_case(id))
    }

    /// The names a scenario may write, for messages: `quinn, s2n-quic`.
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|r| r.id()).collect()
    }

    /// Whether a sender can ask this receiver, through QUIC's ACK frequency extension, how often
    /// to acknowledge (`max_ack_delay`, `ack_eliciting_threshold`).
    pub fn takes_ack_frequency(self) -> bool {
        match self {
            Receiver::Quinn => true,
            // s2n-quic neither advertises `min_ack_delay` nor reads ACK_FREQUENCY frames
            // (`ack_manager.rs`: "TODO support delayed ack proposal").
            Receiver::S2nQuic => false,
        }
    }
}

impl fmt::Display for Receiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_once() {
        assert_eq!(Receiver::parse(" s2n-quic "), Some(Receiver::S2nQuic));
        assert_eq!(Receiver::parse("Quinn"), Some(Receiver::Quinn));
        assert_eq!(Receiver::parse("s2n"), None);
        assert_eq!(Receiver::default(), Receiver::Quinn);
        assert_eq!(Receiver::names(), ["quinn", "s2n-quic"]);
        assert!(!Receiver::S2nQuic.takes_ack_frequency());
    }
}
