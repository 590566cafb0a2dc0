//! Peers from another QUIC stack: noq, n0-computer's fork of quinn, whose `noq-proto` ships
//! BBRv3 (draft-ietf-ccwg-bbr-06 with the constants of -05/-06: per-round loss threshold 2 %,
//! beta 0.7, inflight headroom 15 %, probe gains 1.25/0.9, cwnd gain 2) and CUBIC (RFC 9438).
//!
//! noq's `Controller` trait is its own, so its controllers cannot run in a quinn connection: a
//! `noq-*` flow is a noq sender and a noq receiver, end to end, on the same links as every other
//! flow, in either runner: both drive one adapter of noq-proto's sans-IO endpoints
//! (`sim::stack::noq`), the simulator on its clock, the namespace runner on real sockets
//! (`netns::noq`). Its controller logs no `discern::cwnd` events, so the recorder gets what noq's statistics
//! give: goodput and bytes (checked by the receiver as on every flow), the congestion window and
//! RTT in the time series, lost packets and congestion events at the end; no loss verdicts.

mod config;

use std::sync::Arc;

use noq_proto::congestion::{Bbr3Config, ControllerFactory, CubicConfig};

pub use crate::scenario::NoqPeer;
pub use config::{NoqConfigs, NoqIdentity};

/// The stack the `noq-*` peers come from, as `discern list` shows it: the crate and the version
/// requirement the harness builds it with (`Cargo.toml`).
pub const SOURCE: &str = "noq-proto 1.4";

/// The sender's controller factory of `peer`.
///
/// noq-proto 1.4 keeps `Bbr3Config::probe_rng_seed` private, with no setter, so BBRv3 draws
/// its probe timing (BBRPickProbeWait: ProbeBW's wait of 2 to 3 s and its Reno-coexistence
/// round bound, draft-ietf-ccwg-bbr-05 section 5.3.3.5.3) from the operating system: a
/// `noq-bbr3` flow is not reproducible from the run's seed. CUBIC draws nothing.
pub fn factory(peer: NoqPeer) -> Arc<dyn ControllerFactory + Send + Sync> {
    match peer {
        NoqPeer::Bbr3 => Arc::new(Bbr3Config::default()),
        NoqPeer::Cubic => Arc::new(CubicConfig::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_names_the_version_cargo_builds() {
        let manifest = include_str!("../../Cargo.toml");
        let line = manifest
            .lines()
            .find(|l| l.starts_with("noq-proto ="))
            .expect("noq-proto is a dependency");
        let version = SOURCE.strip_prefix("noq-proto ").unwrap();
        assert!(line.contains(&format!("version = \"{version}\"")), "{line}");
    }
}
