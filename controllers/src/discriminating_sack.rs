use std::sync::Arc;
use std::time::Instant;

use quinn_proto::congestion::{Controller, ControllerFactory};

use crate::algorithm::WindowAlgorithm;
use crate::classify::{Classifier, Spike, Trend, ZigZag};
use crate::param::{self, ParamError};
use crate::registry::{ClassifierRow, Factory, Row};
use crate::window::DEFAULT_INITIAL_WINDOW;
use crate::{AckElicitingThreshold, Adapter};

/// SACK TCP's window (NewReno's response with QUIC's ACK ranges: halve once per window, Reno
/// growth) that keeps its window on the losses `C` calls random.
///
/// A loss-differentiation algorithm on its own only labels losses; this is the plainest sender
/// that acts on the labels (Cen, Cosman and Voelker, "End-to-end differentiation of congestion
/// and wireless losses", IEEE/ACM ToN 11(5), 2003, pair theirs with a TCP sender that does not
/// reduce for losses labelled wireless). The registry runs `spike`, `zigzag` and `trend` this
/// way. Modified SACK and Composite have the same shape with their papers' classifiers and
/// their own types.
///
/// Mapping to QUIC: as [`crate::SackNewReno`]; the classifier sees every ACK and every loss event.
pub type DiscriminatingSack<C> = Adapter<WindowAlgorithm<C>>;

/// Factory for [`DiscriminatingSack`]: every new connection starts from a clone of `classifier`.
#[derive(Debug, Clone)]
pub struct DiscriminatingSackConfig<C> {
    id: Arc<str>,
    classifier: C,
    initial_window: u64,
    ack_eliciting_threshold: AckElicitingThreshold,
}

impl<C: Classifier> DiscriminatingSackConfig<C> {
    /// `id` names the controller in `tracing` events, e.g. `"spike"`.
    pub fn new(id: impl Into<Arc<str>>, classifier: C) -> Self {
        Self {
            id: id.into(),
            classifier,
            initial_window: DEFAULT_INITIAL_WINDOW,
            ack_eliciting_threshold: AckElicitingThreshold::RFC_9000,
        }
    }

    /// Initial window in bytes (default: RFC 9002's 10 x 1200 bytes, as quinn), at least two
    /// packets of QUIC's smallest size.
    pub fn initial_window(&mut self, bytes: u64) -> Result<&mut Self, ParamError> {
        self.initial_window = param::initial_window(bytes)?;
        Ok(self)
    }

    /// The Ack-Eliciting Threshold the sender asked its receiver for, where it negotiated ACK
    /// frequency (default: RFC 9000's receiver, asked nothing): the frames the receiver owed at
    /// once are credited no ACK Delay.
    pub fn ack_eliciting_threshold(&mut self, threshold: AckElicitingThreshold) -> &mut Self {
        self.ack_eliciting_threshold = threshold;
        self
    }

    /// The pure state machine, for a path whose MSS is `mss` bytes.
    pub fn algorithm(&self, mss: u64) -> WindowAlgorithm<C> {
        WindowAlgorithm::sack(self.initial_window, mss, self.classifier.clone())
    }
}

impl<C: Classifier> ControllerFactory for DiscriminatingSackConfig<C> {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        Box::new(
            Adapter::new(
                Arc::clone(&self.id),
                self.algorithm(u64::from(current_mtu)),
                self.initial_window,
                now,
            )
            .with_ack_eliciting_threshold(self.ack_eliciting_threshold),
        )
    }
}

/// The registry's rows for classifiers that have no controller of their own: each runs as
/// [`DiscriminatingSack`] under its own id.
macro_rules! sack_row {
    ($classifier:ty, $id:literal, $summary:literal) => {
        impl Row for $classifier {
            const ID: &'static str = $id;
            const SUMMARY: &'static str = $summary;

            fn factory(self, threshold: AckElicitingThreshold) -> Factory {
                let mut config = DiscriminatingSackConfig::new($id, self);
                config.ack_eliciting_threshold(threshold);
                Arc::new(config)
            }
        }

        impl ClassifierRow for $classifier {
            type Classifier = Self;

            fn loss_classifier(&self) -> Self {
                self.clone()
            }
        }
    };
}

sack_row!(
    Spike,
    "spike",
    "Spike (Cen et al. 2003): random unless the one-way delay is in a spike"
);
sack_row!(
    ZigZag,
    "zigzag",
    "ZigZag (Cen et al. 2003): the one-way delay against its mean and deviation"
);
sack_row!(
    Trend,
    "trend",
    "Trend (Hsiao et al. 2005): congestion while the one-way delay rises"
);
