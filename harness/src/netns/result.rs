//! What a flow of either kind reports at its end: the type the QUIC and the TCP flows hand back
//! to the runner, apart from both so that neither imports the other's runner.

use std::time::Duration;

use crate::report::record::{FlowOutcome, Reading};

/// What a flow of either kind (QUIC or kernel TCP) reports at its end.
#[derive(Debug, Clone, Default)]
pub struct FlowResult {
    pub outcome: FlowOutcome,
    /// The smallest RTT the sender saw, for the links' base RTT.
    pub min_rtt: Option<Duration>,
    /// The sender read every sample interval.
    pub readings: Vec<Reading>,
}
