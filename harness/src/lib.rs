//! The discern harness: scenarios, the deterministic simulator, the netns runner, metrics and plots.

pub mod capture;
pub mod cli;
pub mod link;
pub mod log;
pub mod logplot;
pub mod netns;
pub mod noq;
pub mod output;
pub mod payload;
pub mod report;
pub mod run_aggregate;
pub mod runner;
pub mod scenario;
pub mod score;
pub mod shard;
pub mod sim;
pub mod stats;
pub mod sweep;
pub mod tls;
pub mod transport;
pub mod units;
