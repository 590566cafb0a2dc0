//! The `ControllerFactory` glue every `XxxConfig` shares.

/// Implements quinn's `ControllerFactory` for a config with `fn algorithm(&self, mss: u64)` and an
/// `initial_window` field, under the controller id `$id`.
macro_rules! controller_factory {
    ($config:ty, $id:literal) => {
        impl $config {
            /// The id of this controller in [`crate::registry`] and in `tracing` events.
            pub const ID: &'static str = $id;

            /// Initial window in bytes (default: RFC 9002's 10 x 1200 bytes, as quinn), at
            /// least two packets of QUIC's smallest size.
            pub fn initial_window(
                &mut self,
                bytes: u64,
            ) -> Result<&mut Self, $crate::param::ParamError> {
                self.initial_window = $crate::param::at_least(
                    "initial_window",
                    bytes,
                    2 * 1200,
                    "a number of bytes of at least 2400 (two 1200-byte packets)",
                )?;
                Ok(self)
            }
        }

        impl quinn_proto::congestion::ControllerFactory for $config {
            fn build(
                self: std::sync::Arc<Self>,
                now: std::time::Instant,
                current_mtu: u16,
            ) -> Box<dyn quinn_proto::congestion::Controller> {
                Box::new($crate::Adapter::new(
                    $id,
                    self.algorithm(u64::from(current_mtu)),
                    self.initial_window,
                    now,
                ))
            }
        }
    };
}

pub(crate) use controller_factory;
