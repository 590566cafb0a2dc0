//! The glue every `XxxConfig` shares: quinn's `ControllerFactory` and its row in the registry.

/// Implements quinn's `ControllerFactory` for a config with `fn algorithm(&self, mss: u64)` and
/// the `initial_window` and `ack_eliciting_threshold` fields (a config declared with
/// `param::config!`), under the controller id `$id`, and makes it a row of the registry with the
/// one-line `$summary` (its parameters are its `Params` table). Anything after the summary goes
/// into the `Row` implementation, e.g. a `packet_threshold` the controller needs.
macro_rules! controller_factory {
    ($config:ty, $id:literal, $summary:literal $(, $($row:tt)+)?) => {
        impl $config {
            /// The id of this controller in [`crate::registry`] and in `tracing` events.
            pub const ID: &'static str = $id;
        }

        impl quinn_proto::congestion::ControllerFactory for $config {
            fn build(
                self: std::sync::Arc<Self>,
                now: std::time::Instant,
                current_mtu: u16,
            ) -> Box<dyn quinn_proto::congestion::Controller> {
                Box::new(
                    $crate::Adapter::new(
                        $id,
                        self.algorithm(u64::from(current_mtu)),
                        self.initial_window,
                        now,
                    )
                    .with_ack_eliciting_threshold(self.ack_eliciting_threshold),
                )
            }
        }

        impl $crate::registry::Row for $config {
            const ID: &'static str = $id;
            const SUMMARY: &'static str = $summary;

            fn factory(
                mut self,
                threshold: $crate::AckElicitingThreshold,
            ) -> $crate::registry::Factory {
                self.ack_eliciting_threshold(threshold);
                std::sync::Arc::new(self)
            }

            $($($row)+)?
        }
    };
}

pub(crate) use controller_factory;
