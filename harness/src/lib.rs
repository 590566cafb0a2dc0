//! The discern harness: scenarios, the deterministic simulator, the netns runner, metrics and plots.

pub mod report;
pub mod scenario;
pub mod sim;
pub mod units;
