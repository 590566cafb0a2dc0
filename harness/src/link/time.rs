//! The links' clock unit, apart from the link model so that the capacity trace, which the
//! scenario format also names, needs nothing else of `link/`.

/// Nanoseconds since the start of a run (virtual in the simulator, real in namespaces).
pub type Nanos = u64;

pub const NANOS_PER_SEC: u64 = 1_000_000_000;
