//! Loss-discriminating congestion controllers for [quinn](https://docs.rs/quinn).
//!
//! On a wireless or otherwise lossy path, a loss-based controller reads every lost packet as
//! congestion and halves its window, so a 1 % bit-error rate leaves most of the link unused. This
//! crate ports five published modifications of TCP that tell a random loss from a congestion loss
//! (or soften the response to every loss), plus the baselines they are measured against, as
//! drop-in quinn controllers:
//!
//! | id | factory | paper |
//! |---|---|---|
//! | `tahoe` | [`TahoeConfig`] | baseline |
//! | `reno` | [`RenoConfig`] | baseline |
//! | `newreno` | [`SackNewRenoConfig`] | baseline; SACK TCP in QUIC |
//! | `modified-tahoe` | [`ModifiedTahoeConfig`] | 001, section 5.2 |
//! | `modified-sack` | [`ModifiedSackConfig`] | 000, section 3.1 |
//! | `wnewreno` | [`WNewRenoConfig`] | 002, section IV |
//! | `sack-few` | [`SackFewConfig`] | 003, section 2 |
//! | `composite` | [`CompositeConfig`] | 004, section 3 |
//! | `veno` | [`VenoConfig`] | Fu and Liew, JSAC 2003 |
//! | `westwood` | [`WestwoodConfig`] | Grieco and Mascolo, CCR 2004 |
//! | `spike`, `zigzag`, `trend` | [`DiscriminatingSackConfig`] | Cen et al., ToN 2003; Hsiao et al., ICASSP 2005 |
//! | `discern` | [`DiscernConfig`] | this crate's own: a loss that did not meet a full queue is random |
//!
//! Any classifier can also stand in front of any quinn controller, quinn's own CUBIC or BBR
//! included, through [`LossFilterConfig`] (`discern+quinn-cubic` in [`registry`]).
//!
//! The names do not clash with quinn's: both crates glob-import side by side (this crate's
//! NewReno, SACK TCP in QUIC, is [`SackNewReno`]).
//!
//! ```
//! use quinn::congestion::*;
//! use quinn_discern::*;
//! let _quinns: NewRenoConfig = NewRenoConfig::default();
//! let _ours: SackNewRenoConfig = SackNewRenoConfig::default();
//! ```
//!
//! ```no_run
//! use std::sync::Arc;
//! let mut transport = quinn_proto::TransportConfig::default();
//! transport.congestion_controller_factory(Arc::new(quinn_discern::CompositeConfig::default()));
//! // Modified Tahoe also needs quinn's packet threshold of 2:
//! quinn_discern::ModifiedTahoeConfig::default().configure(&mut transport);
//! // Or by id, as the harness does:
//! quinn_discern::registry::parse("modified-sack:tolerance=0.02")?.apply(&mut transport);
//! # Ok::<(), quinn_discern::registry::ParseError>(())
//! ```
//!
//! # From TCP to QUIC
//!
//! | TCP concept in the papers | QUIC / quinn counterpart |
//! |---|---|
//! | 3 duplicate ACKs (dupthresh) | quinn's loss detection: `TransportConfig::packet_threshold` (default 3) and the 9/8 RTT time threshold. Modified Tahoe's dupthresh 2 is `packet_threshold(2)`, applied by [`ModifiedTahoeConfig::configure`] or [`registry::ControllerSpec::apply`]. |
//! | SACK blocks, "gap in SACK information" | ACK frame ranges. quinn declares lost packets from them and calls `on_congestion_event(now, sent_of_largest_lost, persistent, lost_bytes)` once per ACK that revealed losses. Lost packets in one call = `ceil(lost_bytes / MSS)`. |
//! | "multiple losses in one window" | more than one packet lost among those in flight when the episode's first loss was detected: an event whose `sent` is at or before that moment belongs to the same window ([`episode`]). |
//! | fast retransmit | always done by QUIC (lost frames are re-sent in new packets). A controller decides only the window. |
//! | fast recovery (halve cwnd) | `cwnd = cwnd * beta`, `ssthresh = cwnd`, recovery period until a packet sent after the reduction is acknowledged. |
//! | delayed fast recovery (DFR) | a loss classified random does not reduce cwnd; a later loss in the same window (or a classifier that says congestion) does. |
//! | RTT, SRTT | per-ACK-frame sample `now - sent` of the newest acknowledged packet; SRTT where a paper compares against it is the TCP sender's average of one sample per round trip ([`classify::TcpSrtt`]), elsewhere quinn's `RttEstimator::get()`; minimum RTT quinn's `min()`. |
//! | one-way delay (TCP timestamps, synchronised clocks in ns-2) | no OWD in QUIC without extensions: the hint ([`event::RttSample::owd_hint`]) is half the minimum RTT plus the queueing part of the RTT (the sample without the peer's ACK delay, minus the min RTT). quinn 0.11 does not pass the ACK delay to controllers; the crate recovers it from the way quinn's estimator moves, one ACK frame late ([`event::AckBatch::resolved`]); the frame that reveals a loss is sent at once by the receiver and carries none. The one delay it cannot recover is one already inside quinn's minimum RTT (every ACK held for the timer), which quinn does not subtract either. |
//! | slow start with a large window (RFC 3742) | limited slow start above [`MAX_SSTHRESH_PACKETS`] (512 MSS) for every paper controller and above [`START_MAX_SSTHRESH_PACKETS`] (2048 MSS) for `discern`'s first slow start, which the delay ends, and a loss of more than half the window or more than [`classify::RECEIVER_GAP_BUDGET`] packets in one window is congestion whatever the classifier says: a quinn receiver closes the connection when a stream has more than 1024 gaps, and one gigabit round of overshoot, or a policer's drops read as random, leaves more. |
//! | retransmission timeout -> slow start | persistent congestion (`is_persistent_congestion`) -> the algorithm's minimum window, slow start. |
//! | packet counts (cwnd in packets) | bytes; 1 MSS = the current maximum datagram size (`on_mtu_update`). quinn holds back a packet once `in_flight + packet_size` reaches the window, so the adapter hands quinn `cwnd + 1` byte: a window of N MSS lets N packets be in flight, as in TCP (quinn's own controllers let N - 1). |
//!
//! # Design
//!
//! Each algorithm is a pure state machine ([`WindowAlgorithm`]) over this crate's own inputs
//! ([`event`]): a [`Window`], a loss [`classify::Classifier`] and growth and reduction rules.
//! One generic [`Adapter`] turns quinn's `Controller` callbacks into those inputs and emits the
//! `tracing` events described in [`trace`], so the algorithms are unit-tested with synthetic
//! sequences and a change of quinn's trait touches only the adapter. The loss filter is the
//! adapter too, with a classifier and a quinn controller in place of an algorithm.

#![warn(missing_docs, missing_debug_implementations)]

mod adapter;
mod algorithm;
pub mod bandwidth;
pub mod classify;
pub mod drain_probe;
pub mod episode;
pub mod event;
mod factory;
mod filter;
pub mod growth;
pub mod hystart;
pub mod param;
pub mod registry;
mod rtt;
mod short_queue;
pub mod trace;
mod window;

pub use adapter::{Adapter, Algorithm};
pub use algorithm::{
    CompositeAlgorithm, LossBased, LossBasedAlgorithm, ModifiedSackAlgorithm, RandomResponse,
    Reduction, WNewRenoAlgorithm, WindowAlgorithm,
};
pub use filter::{LossFilter, LossFilterBody, LossFilterConfig};
pub use growth::Growth;
pub use rtt::AckElicitingThreshold;
pub use short_queue::{
    Competing, NoisyFloor, NoisyStart, Overshoot, QueueOwner, ShortQueueAlgorithm, SlowStartRamp,
    START_MAX_SSTHRESH_PACKETS,
};
pub use window::{Window, DEFAULT_INITIAL_WINDOW, MAX_SSTHRESH_PACKETS};

// Every controller, one line each: its file (declared, and its public types re-exported here) and
// its rows in the registry, in the order `discern list` shows them. The id table in the crate
// docs above is documentation, written by hand.
registry::controllers! {
    tahoe: controller TahoeConfig;
    reno: controller RenoConfig;
    newreno: controller SackNewRenoConfig;
    modified_tahoe: controller ModifiedTahoeConfig;
    modified_sack: classifier ModifiedSackConfig;
    wnewreno: classifier WNewRenoConfig;
    sack_few: controller SackFewConfig;
    composite: classifier CompositeConfig;
    veno: classifier VenoConfig;
    westwood: controller WestwoodConfig;
    discern_controller: classifier DiscernConfig;
    discriminating_sack: classifier classify::Spike, classifier classify::ZigZag,
        classifier classify::Trend;
    quinn_peers: controller quinn_proto::congestion::NewRenoConfig,
        controller quinn_proto::congestion::CubicConfig,
        controller quinn_proto::congestion::BbrConfig;
}

/// The repository's README, whose Rust snippets compile as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct RepositoryReadme;

/// This crate's README, whose Rust snippets compile as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadme;
