//! A receiver that lies about its ACK Delay (`receiver_lies = { ack_delay = "25ms", when =
//! "on_gap" }`), resolved once when the scenario loads. Only the simulator hosts it: it sees each
//! packet in plaintext under null protection and rewrites the field on the way back (`sim/liar.rs`).
//!
//! The ACK Delay field (RFC 9000 section 19.3) is a variable-length integer (section 16) holding
//! microseconds shifted right by the receiver's `ack_delay_exponent` (section 18.2, default 3,
//! which quinn's receiver keeps). This is the optimistic-ACK family (RFC 9000 section 21.4) aimed
//! at the delay a loss classifier reads.

use std::fmt;
use std::time::Duration;

/// quinn's receiver's `ack_delay_exponent`: the transport parameter's default (RFC 9000 section
/// 18.2), which quinn offers no way to change.
pub const ACK_DELAY_EXPONENT: u32 = 3;

/// The largest value of a QUIC variable-length integer (RFC 9000 section 16).
pub const VARINT_MAX: u64 = (1 << 62) - 1;

/// What a lying receiver reports as ACK Delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiedDelay {
    /// The same delay in every frame it rewrites (`ack_delay = "25ms"`).
    Constant(Duration),
    /// The oracle liar (`ack_delay = "queue"`): the frame's true ACK Delay plus the queueing delay
    /// its largest acknowledged packet met, capped at the receiver's `max_ack_delay`, where quinn
    /// stops crediting it (RFC 9002 section 5.3).
    Queue,
}

impl LiedDelay {
    /// A constant lie, if the ACK Delay field can hold it: its microseconds shifted right by
    /// [`ACK_DELAY_EXPONENT`] must be a varint. Otherwise says why, for the scenario's message.
    pub fn constant(delay: Duration) -> Result<LiedDelay, String> {
        let field = delay.as_micros() >> ACK_DELAY_EXPONENT;
        if field > u128::from(VARINT_MAX) {
            return Err(format!(
                "the ACK Delay field holds at most {} us (2^62 - 1 units of 2^{ACK_DELAY_EXPONENT} \
                 us, RFC 9000 sections 16 and 19.3)",
                u128::from(VARINT_MAX) << ACK_DELAY_EXPONENT
            ));
        }
        Ok(LiedDelay::Constant(delay))
    }
}

/// Which ACK frames a lying receiver rewrites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LieWhen {
    /// Every ACK frame of the application packet number space.
    Always,
    /// Only frames whose ranges show a gap (ACK Range Count above zero): those that reveal a
    /// loss to the sender.
    OnGap,
}

impl LieWhen {
    /// Every mode, in the order messages list them.
    pub const ALL: [LieWhen; 2] = [LieWhen::Always, LieWhen::OnGap];

    /// The name a scenario writes.
    pub fn id(self) -> &'static str {
        match self {
            LieWhen::Always => "always",
            LieWhen::OnGap => "on_gap",
        }
    }

    /// The mode named `id` (exactly).
    pub fn parse(id: &str) -> Option<LieWhen> {
        Self::ALL.into_iter().find(|w| w.id() == id)
    }
}

/// How a lie is written into a field whose encoded length may be too short for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LieLength {
    /// The field keeps its encoded length, so every packet keeps its size and the links their
    /// timing; a lie the length cannot hold (one byte holds 504 us) is written as the length's
    /// largest value.
    Keep,
    /// The field takes the length the lie needs, as a receiver that encodes the lie itself
    /// would: the packet grows by the extra bytes and the links carry them.
    Grow,
}

impl LieLength {
    /// Every choice, in the order messages list them.
    pub const ALL: [LieLength; 2] = [LieLength::Keep, LieLength::Grow];

    /// The name a scenario writes.
    pub fn id(self) -> &'static str {
        match self {
            LieLength::Keep => "keep",
            LieLength::Grow => "grow",
        }
    }

    /// The choice named `id` (exactly).
    pub fn parse(id: &str) -> Option<LieLength> {
        Self::ALL.into_iter().find(|l| l.id() == id)
    }
}

/// A flow's lying receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReceiverLies {
    pub ack_delay: LiedDelay,
    pub when: LieWhen,
    pub length: LieLength,
    /// The line of the scenario file that asks for it (0 for an override), so that a runner that
    /// cannot host it names the line.
    pub line: usize,
}

impl fmt::Display for ReceiverLies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let delay = match self.ack_delay {
            LiedDelay::Constant(d) => crate::units::format_duration(d),
            LiedDelay::Queue => "queue".into(),
        };
        write!(
            f,
            "receiver_lies = {{ ack_delay = \"{delay}\", when = \"{}\", length = \"{}\" }}",
            self.when.id(),
            self.length.id()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_holds_a_varint_of_eighths_of_a_millisecond() {
        // (2^62 - 1) * 8 us is 36,893,488,147,419.103224 s.
        let most = Duration::from_secs(36_893_488_147_419);
        assert_eq!(LiedDelay::constant(most), Ok(LiedDelay::Constant(most)));
        let over = Duration::from_secs(36_893_488_147_420);
        let err = LiedDelay::constant(over).unwrap_err();
        assert!(err.contains("36893488147419103224 us"), "{err}");
        assert!(LiedDelay::constant(Duration::from_millis(25)).is_ok());
    }

    #[test]
    fn modes_read_back_by_their_names() {
        for w in LieWhen::ALL {
            assert_eq!(LieWhen::parse(w.id()), Some(w));
        }
        assert_eq!(LieWhen::parse("gap"), None);
        for l in LieLength::ALL {
            assert_eq!(LieLength::parse(l.id()), Some(l));
        }
        assert_eq!(LieLength::parse("long"), None);
    }
}
