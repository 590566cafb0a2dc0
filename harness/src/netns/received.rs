//! What a flow's receiving endpoint found, whichever stack it runs (quinn in `quic.rs`, s2n-quic
//! in `s2n.rs`), and the check both make of every byte of the stream.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::ack_report::ReportsAcks;
use crate::payload::Pattern;

/// What the receiving endpoint found, of either stack.
pub(super) struct Received {
    pub verified: bool,
    pub completed_at: Option<Instant>,
    pub packets: u64,
    /// Why the receiver's own endpoint closed the connection, if it did.
    pub closed: Option<String>,
    /// The record of a receiver that reports its own ACKs (s2n-quic).
    pub acks: Option<Box<dyn ReportsAcks>>,
    /// An endpoint that closes its connection when dropped (s2n-quic's server and connection),
    /// held until the sender has stopped.
    pub endpoint: Option<Box<dyn Send>>,
}

impl Received {
    pub fn new() -> Self {
        Self {
            verified: true,
            completed_at: None,
            packets: 0,
            closed: None,
            acks: None,
            endpoint: None,
        }
    }
}

/// The receiver's check of the stream, chunk by chunk, in order: every byte against the flow's
/// pattern, the count for the sampler, and the flow's completion.
pub(super) struct Check {
    pattern: Pattern,
    bytes: Option<u64>,
    delivered: Arc<AtomicU64>,
    offset: u64,
}

impl Check {
    /// A check of a stream of `bytes` (unbounded: `None`) in `pattern`, counting what arrived
    /// in `delivered`.
    pub fn new(pattern: Pattern, bytes: Option<u64>, delivered: Arc<AtomicU64>) -> Self {
        Self {
            pattern,
            bytes,
            delivered,
            offset: 0,
        }
    }

    /// Checks the next `chunk` of the stream; true when reading should stop (the bytes are
    /// wrong, or all in).
    pub fn next(&mut self, chunk: &[u8], out: &mut Received) -> bool {
        self.at(self.offset, chunk, out)
    }

    /// Checks `chunk`, which the stream placed at `offset`.
    pub fn at(&mut self, offset: u64, chunk: &[u8], out: &mut Received) -> bool {
        if offset != self.offset || !self.pattern.check(offset, chunk) {
            out.verified = false;
            return true;
        }
        self.offset += chunk.len() as u64;
        self.delivered.store(self.offset, Ordering::Relaxed);
        if self.bytes == Some(self.offset) {
            out.completed_at = Some(Instant::now());
            return true;
        }
        false
    }
}
