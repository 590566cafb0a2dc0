//! The links' units, apart from the link model so that what the scenario format also names (a
//! capacity trace's timing, the smallest MTU) needs nothing else of `link/`.

/// Nanoseconds since the start of a run (virtual in the simulator, real in namespaces).
pub type Nanos = u64;

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// IPv4 + UDP header bytes added to every QUIC datagram on the wire.
pub const IP_UDP_OVERHEAD: u64 = 28;

/// The smallest UDP payload QUIC allows (RFC 9000 section 14).
pub const QUIC_MIN_DATAGRAM: u64 = 1200;
