//! Units at the edges: sizes in bytes, rates in bit/s. Durations are `std::time::Duration`.

/// A size in bytes. Parsed from `1500`, `1500B`, `1.6MB` (SI, 10^6), `20MiB` (binary), `64KB`, `1GB`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bytes(pub u64);

/// A rate in bits per second. Parsed from `100Mbit`, `1.5Mbit`, `2Mbps`, `10kbit`, `1Gbit`, `9600bit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct BitRate(pub u64);
