//! Which congestion controller a flow's sender runs, from its id, through the
//! controllers crate's registry.
//!
//! quinn's own controllers emit no `discern::cwnd` events, so they run behind the crate's loss
//! filter with the loss-based classifier: it forwards every callback unchanged and logs each
//! congestion event with verdict `congestion`, so their decisions are scored and counted like
//! everyone else's, in both runners.

use std::sync::Arc;

use quinn_discern::{LossBased, LossFilterConfig};
use quinn_proto::TransportConfig;

use crate::transport::TransportError;

/// Sets the sender's congestion controller for controller id `id` on `config`, with any
/// loss-detection setting the controller needs.
pub fn apply(id: &str, config: &mut TransportConfig) -> Result<(), TransportError> {
    let spec = quinn_discern::registry::parse(id)
        .map_err(|e| TransportError::Controller(e.to_string()))?;
    spec.apply(config);
    if spec.id().starts_with("quinn-") && !spec.id().contains('+') {
        let observed = LossFilterConfig::new(spec.id(), LossBased, spec.factory());
        config.congestion_controller_factory(Arc::new(observed));
    }
    Ok(())
}
