//! What a flow of either kind reports at its end: the type the QUIC and the TCP flows hand back
//! to the runner, apart from both so that neither imports the other's runner.

use std::time::Duration;

use super::ack_report::ReceiverLog;
use crate::report::record::{FlowOutcome, Reading};

/// What a flow of either kind (QUIC or kernel TCP) reports at its end.
#[derive(Debug, Clone, Default)]
pub struct FlowResult {
    pub outcome: FlowOutcome,
    /// The smallest RTT the sender saw, for the links' base RTT.
    pub min_rtt: Option<Duration>,
    /// The sender read every sample interval.
    pub readings: Vec<Reading>,
    /// A foreign receiver's own account of its ACK frames (s2n-quic), to score the sender's
    /// recovered ACK delays against once the run's records are in.
    pub receiver_log: Option<ReceiverLog>,
}
