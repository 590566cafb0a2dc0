//! quinn's own controllers as rows of the registry (`quinn-newreno`, `quinn-cubic`,
//! `quinn-bbr`): unchanged, with no parameters, and no decisions of their own in the logs.

use std::sync::Arc;

use quinn_proto::congestion::{BbrConfig, CubicConfig, NewRenoConfig};

use crate::param::{Param, Params};
use crate::registry::{Factory, Row};
use crate::AckElicitingThreshold;

/// quinn's own controllers, unchanged, with no parameters.
macro_rules! quinn_row {
    ($config:ty, $id:literal, $summary:literal) => {
        impl Params for $config {
            const PARAMS: &'static [Param<Self>] = &[];
        }

        impl Row for $config {
            const ID: &'static str = $id;
            const SUMMARY: &'static str = $summary;
            const LOGS_DECISIONS: bool = false;

            /// quinn's controllers keep no RTT tracker of this crate: the threshold is not theirs.
            fn factory(self, _: AckElicitingThreshold) -> Factory {
                Arc::new(self)
            }
        }
    };
}

quinn_row!(
    NewRenoConfig,
    "quinn-newreno",
    "quinn's own NewReno, unchanged"
);
quinn_row!(CubicConfig, "quinn-cubic", "quinn's own CUBIC, unchanged");
quinn_row!(BbrConfig, "quinn-bbr", "quinn's own BBR, unchanged");
