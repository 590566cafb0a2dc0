//! One registry of controller ids (ARCHITECTURE.md, "The registry") shared by the harness, the
//! examples and users: `tahoe`, `modified-sack:tolerance=0.02`, `composite+quinn-cubic`, ...
//!
//! Every row comes from one config type: its id and summary (`controller_factory!` in the
//! controller's file), its parameters (the config's `Params` table, whose defaults are read from
//! `Default`), and its line in the crate's list of controllers (`controllers!` in `lib.rs`).

use std::error::Error;
use std::fmt;
use std::fmt::Debug;
use std::sync::{Arc, OnceLock};

use quinn_proto::congestion::ControllerFactory;
use quinn_proto::TransportConfig;

use crate::classify::Classifier;
use crate::param::{ParamError, Params};
use crate::{AckElicitingThreshold, LossBased, LossFilterConfig};

pub(crate) type Factory = Arc<dyn ControllerFactory + Send + Sync>;

/// Builds a resolved id's factory for a sender that asked its receiver for a threshold: the
/// parameters were checked once, at parse time, so building cannot fail.
type FactoryFor = Arc<dyn Fn(AckElicitingThreshold) -> Factory + Send + Sync>;

/// The config a row resolved to, for its `Debug` text.
type Config = Arc<dyn Debug + Send + Sync>;

/// Declares every controller module of the crate and the registry's rows from one list, in
/// `lib.rs`: `module: kind Config, ...;` declares `mod module;`, re-exports its public items at
/// the crate root (`pub use module::*`: the types a controller's file declares public are the
/// crate's API) and adds a row per `Config`, in the order written, which is the order listings
/// show. `kind` is `controller`, or `classifier` for a row that can also stand before `+`
/// (its config implements [`ClassifierRow`]).
macro_rules! controllers {
    ($($module:ident: $($kind:ident $row:ty),+;)*) => {
        $(
            mod $module;
            // A module may only add rows for types declared elsewhere (quinn's own
            // controllers) and so export nothing.
            #[allow(unused_imports)]
            pub use $module::*;
        )*

        /// Every row of [`registry::catalog`], in the order listings show them.
        pub(crate) const ROWS: &[fn() -> registry::ControllerInfo] =
            &[$($(registry::$kind::<$row>,)+)*];
    };
}

pub(crate) use controllers;

/// A config the registry lists and builds: one row of [`catalog`].
pub(crate) trait Row: Params + Clone + Debug + Send + Sync + 'static {
    /// The id as written in a controller spec.
    const ID: &'static str;
    /// One line on what the controller is.
    const SUMMARY: &'static str;

    /// The quinn factory this config makes, for a sender that asked its receiver for
    /// `threshold` (ACK frequency).
    fn factory(self, threshold: AckElicitingThreshold) -> Factory;

    /// Whether the controller logs its own decisions as `discern::cwnd` events; quinn's own
    /// do not.
    const LOGS_DECISIONS: bool = true;

    /// A loss-detection packet threshold the algorithm needs (Modified Tahoe's dupthresh 2).
    fn packet_threshold(&self) -> Option<u32> {
        None
    }
}

/// A row that can stand before `+` as the loss classifier of another controller.
pub(crate) trait ClassifierRow: Row {
    type Classifier: Classifier;

    /// The loss classifier alone.
    fn loss_classifier(&self) -> Self::Classifier;
}

/// A controller id resolved to everything a quinn `TransportConfig` needs.
#[derive(Clone)]
pub struct ControllerSpec {
    id: String,
    factory_for: FactoryFor,
    ack_eliciting_threshold: AckElicitingThreshold,
    packet_threshold: Option<u32>,
    config: Config,
    logs_decisions: bool,
}

impl ControllerSpec {
    /// The id as given (trimmed).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The factory to hand to `TransportConfig::congestion_controller_factory`.
    pub fn factory(&self) -> Factory {
        (self.factory_for)(self.ack_eliciting_threshold)
    }

    /// This controller for a sender that asks its receiver for `threshold` with ACK frequency
    /// (quinn's `AckFrequencyConfig::ack_eliciting_threshold`, to a peer that supports it;
    /// default: none asked, RFC 9000's receiver): the controller, and a classifier in front of
    /// it, credit no ACK Delay to the frames the receiver owed at once.
    pub fn with_ack_eliciting_threshold(mut self, threshold: AckElicitingThreshold) -> Self {
        self.ack_eliciting_threshold = threshold;
        self
    }

    /// The Ack-Eliciting Threshold the controller was built for.
    pub fn ack_eliciting_threshold(&self) -> AckElicitingThreshold {
        self.ack_eliciting_threshold
    }

    /// A loss-detection packet threshold the algorithm needs (Modified Tahoe's dupthresh 2).
    pub fn packet_threshold(&self) -> Option<u32> {
        self.packet_threshold
    }

    /// The config the id built (for `CLASSIFIER+INNER`, the inner controller's), e.g. to see
    /// with `Debug` what its parameters resolved to.
    pub fn config(&self) -> &(dyn Debug + Send + Sync) {
        self.config.as_ref()
    }

    /// Installs the controller, and any loss-detection setting it needs, in `transport`.
    pub fn apply(&self, transport: &mut TransportConfig) {
        transport.congestion_controller_factory(self.factory());
        if let Some(threshold) = self.packet_threshold {
            transport.packet_threshold(threshold);
        }
    }

    /// As [`ControllerSpec::apply`], and every congestion decision shows as a `discern::cwnd`
    /// event, for a harness that scores them: quinn's own controllers, which log nothing, run
    /// behind the loss filter with the loss-based classifier, which forwards every callback
    /// unchanged and logs each congestion event with verdict `congestion`.
    pub fn apply_observed(&self, transport: &mut TransportConfig) {
        self.apply(transport);
        if !self.logs_decisions {
            let mut observed = LossFilterConfig::new(self.id.as_str(), LossBased, self.factory());
            observed.ack_eliciting_threshold(self.ack_eliciting_threshold);
            transport.congestion_controller_factory(Arc::new(observed));
        }
    }
}

impl fmt::Debug for ControllerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ControllerSpec")
            .field("id", &self.id)
            .field("ack_eliciting_threshold", &self.ack_eliciting_threshold)
            .field("packet_threshold", &self.packet_threshold)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A controller the registry knows: one row of the one table every id is resolved from.
#[derive(Debug, Clone, Copy)]
pub struct ControllerInfo {
    /// The id as written in a controller spec, e.g. `modified-sack`.
    pub id: &'static str,
    /// One line on what the controller is, for `--help` and listings.
    pub summary: &'static str,
    /// The parameters it takes after `:`, with their defaults.
    pub params: &'static [ParamInfo],
    /// Whether it can stand before `+` as a loss classifier for another controller.
    pub classifier: bool,
    build: fn(&Call) -> Result<Built, ParseError>,
    /// Builds `CLASSIFIER+INNER` around `inner`, for rows whose `classifier` is true.
    filter: Option<FilterBuilder>,
    defaults: fn() -> Config,
}

impl ControllerInfo {
    /// The config this row builds when the id sets no parameter: its type's `Default`, for
    /// `Debug`.
    pub fn default_config(&self) -> Arc<dyn Debug + Send + Sync> {
        (self.defaults)()
    }
}

/// Builds `CLASSIFIER+INNER` (with the whole id, for the logs) around the inner factory.
type FilterBuilder = fn(&Call, &str, FactoryFor) -> Result<FactoryFor, ParseError>;

/// What one `name[:params]` builds.
struct Built {
    factory_for: FactoryFor,
    packet_threshold: Option<u32>,
    config: Config,
    logs_decisions: bool,
}

/// A parameter of a controller id, `id:name=value`.
#[derive(Debug, Clone, Copy)]
pub struct ParamInfo {
    /// Name as written after `:`, e.g. `tolerance`.
    pub name: &'static str,
    /// The value used when the id does not set it, as it would be written: the config's
    /// `Default`, written out.
    pub default: &'static str,
    /// One line on what the parameter means and its unit.
    pub help: &'static str,
}

/// The row of a controller `T`.
pub(crate) fn controller<T: Row>() -> ControllerInfo {
    ControllerInfo {
        id: T::ID,
        summary: T::SUMMARY,
        params: param_infos::<T>(),
        classifier: false,
        build: build::<T>,
        filter: None,
        defaults: || Arc::new(T::default()),
    }
}

/// The row of a controller `T` that can also stand before `+`.
pub(crate) fn classifier<T: ClassifierRow>() -> ControllerInfo {
    ControllerInfo {
        classifier: true,
        filter: Some(filter::<T>),
        ..controller::<T>()
    }
}

/// The listing of `T`'s parameters. The catalog is built once per process and lives as long, so
/// its texts are leaked into `'static` once rather than written out by hand.
fn param_infos<T: Row>() -> &'static [ParamInfo] {
    let defaults = T::default();
    let infos: Vec<ParamInfo> = T::PARAMS
        .iter()
        .map(|param| ParamInfo {
            name: param.name,
            default: Box::leak((param.show)(&defaults).into_boxed_str()),
            help: param.help,
        })
        .collect();
    Box::leak(infos.into_boxed_slice())
}

/// `T::default()` with the parameters `call` sets, each through `T`'s setter, then checked
/// together.
fn configured<T: Row>(call: &Call) -> Result<T, ParseError> {
    let mut config = T::default();
    for param in T::PARAMS {
        if let Some(raw) = call.raw(param.name) {
            (param.set)(&mut config, raw).map_err(|e| call.rejected(e))?;
        }
    }
    config.check().map_err(|e| call.rejected(e))?;
    Ok(config)
}

fn build<T: Row>(call: &Call) -> Result<Built, ParseError> {
    let config = configured::<T>(call)?;
    Ok(Built {
        packet_threshold: config.packet_threshold(),
        factory_for: {
            let config = config.clone();
            Arc::new(move |threshold| config.clone().factory(threshold))
        },
        config: Arc::new(config),
        logs_decisions: T::LOGS_DECISIONS,
    })
}

fn filter<T: ClassifierRow>(
    call: &Call,
    id: &str,
    inner: FactoryFor,
) -> Result<FactoryFor, ParseError> {
    let classifier = configured::<T>(call)?.loss_classifier();
    let id: Arc<str> = id.into();
    Ok(Arc::new(move |threshold| {
        let mut filter = LossFilterConfig::new(id.clone(), classifier.clone(), inner(threshold));
        filter.ack_eliciting_threshold(threshold);
        Arc::new(filter)
    }))
}

/// Every controller id with its parameters. Any `classifier` entry may also stand in front of
/// any entry as `CLASSIFIER+INNER`.
pub fn catalog() -> &'static [ControllerInfo] {
    static CATALOG: OnceLock<Vec<ControllerInfo>> = OnceLock::new();
    CATALOG.get_or_init(|| crate::ROWS.iter().map(|row| row()).collect())
}

/// Resolves a controller id, with optional parameters (`name:key=value,key=value`) and an
/// optional classifier in front (`classifier[:params]+inner[:params]`).
pub fn parse(id: &str) -> Result<ControllerSpec, ParseError> {
    let id = id.trim();
    let built = match id.split_once('+') {
        None => parse_single(id)?,
        Some((classifier, inner)) => {
            if inner.contains('+') {
                return Err(ParseError::NestedFilter { id: id.to_owned() });
            }
            let inner = parse_single(inner)?;
            let factory_for = loss_filter(id, Call::parse(classifier)?, inner.factory_for)?;
            // The filter logs every decision, whoever the inner controller is.
            Built {
                factory_for,
                logs_decisions: true,
                ..inner
            }
        }
    };
    Ok(ControllerSpec {
        id: id.to_owned(),
        factory_for: built.factory_for,
        ack_eliciting_threshold: AckElicitingThreshold::RFC_9000,
        packet_threshold: built.packet_threshold,
        config: built.config,
        logs_decisions: built.logs_decisions,
    })
}

fn parse_single(text: &str) -> Result<Built, ParseError> {
    let call = Call::parse(text)?;
    (call.info.build)(&call)
}

fn loss_filter(id: &str, call: Call, inner: FactoryFor) -> Result<FactoryFor, ParseError> {
    match call.info.filter {
        Some(filter) => filter(&call, id, inner),
        None => Err(ParseError::NotAClassifier {
            id: call.info.id.to_owned(),
        }),
    }
}

/// One `name[:key=value,...]` with its catalog entry.
struct Call {
    info: &'static ControllerInfo,
    params: Vec<(String, String)>,
}

impl Call {
    fn parse(text: &str) -> Result<Self, ParseError> {
        let (name, params) = match text.split_once(':') {
            Some((name, params)) => (name.trim(), Some(params)),
            None => (text.trim(), None),
        };
        if name.is_empty() {
            return Err(ParseError::Empty);
        }
        let info = catalog()
            .iter()
            .find(|info| info.id == name)
            .ok_or_else(|| ParseError::UnknownController {
                id: name.to_owned(),
            })?;
        let mut call = Self {
            info,
            params: Vec::new(),
        };
        for pair in params.into_iter().flat_map(|p| p.split(',')) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| ParseError::MissingValue {
                    controller: info.id,
                    param: pair.trim().to_owned(),
                })?;
            let key = key.trim();
            if !info.params.iter().any(|p| p.name == key) {
                return Err(ParseError::UnknownParameter {
                    controller: info.id,
                    param: key.to_owned(),
                });
            }
            call.params.push((key.to_owned(), value.trim().to_owned()));
        }
        Ok(call)
    }

    fn raw(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// A value the controller's builder rejected.
    fn rejected(&self, error: ParamError) -> ParseError {
        ParseError::BadValue {
            controller: self.info.id,
            param: error.name.to_owned(),
            value: self.raw(error.name).unwrap_or_default().to_owned(),
            expected: error.expected,
        }
    }
}

/// Why a controller id could not be resolved. The messages name the problem and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The id (or one side of its `+`) names no controller: it is empty or only whitespace.
    Empty,
    /// No controller has this id.
    UnknownController {
        /// The id as given.
        id: String,
    },
    /// The controller takes no parameter of this name.
    UnknownParameter {
        /// The controller's id.
        controller: &'static str,
        /// The parameter's name as given.
        param: String,
    },
    /// A parameter was named without `=VALUE`.
    MissingValue {
        /// The controller's id.
        controller: &'static str,
        /// The parameter's name.
        param: String,
    },
    /// A parameter's value does not parse or is out of range.
    BadValue {
        /// The controller's id.
        controller: &'static str,
        /// The parameter's name.
        param: String,
        /// The value as given.
        value: String,
        /// What the value should be, in words.
        expected: &'static str,
    },
    /// The part before `+` is not a loss classifier.
    NotAClassifier {
        /// The whole id as given.
        id: String,
    },
    /// The id has more than one `+`: only one classifier may stand in front of a controller.
    NestedFilter {
        /// The whole id as given.
        id: String,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Empty => write!(f, "empty controller id; expected one of: {}", ids()),
            ParseError::UnknownController { id } => {
                write!(f, "unknown controller \"{id}\"; expected one of: {}", ids())
            }
            ParseError::UnknownParameter { controller, param } => {
                write!(f, "controller \"{controller}\" has no parameter \"{param}\"; ")?;
                write_params(f, controller)
            }
            ParseError::MissingValue { controller, param } => write!(
                f,
                "controller \"{controller}\": parameter \"{param}\" needs a value, as in {controller}:{param}=VALUE"
            ),
            ParseError::BadValue {
                controller,
                param,
                value,
                expected,
            } => write!(
                f,
                "controller \"{controller}\": bad {param} \"{value}\": expected {expected}"
            ),
            ParseError::NotAClassifier { id } => write!(
                f,
                "\"{id}\" cannot classify losses: the part before \"+\" must be one of: {}",
                catalog()
                    .iter()
                    .filter(|c| c.classifier)
                    .map(|c| c.id)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ParseError::NestedFilter { id } => write!(
                f,
                "\"{id}\": only one classifier may stand in front of a controller, as in composite+quinn-cubic"
            ),
        }
    }
}

impl Error for ParseError {}

fn ids() -> String {
    let mut ids: Vec<&str> = catalog().iter().map(|c| c.id).collect();
    ids.push("CLASSIFIER+CONTROLLER");
    ids.join(", ")
}

fn write_params(f: &mut fmt::Formatter<'_>, controller: &str) -> fmt::Result {
    let params = catalog()
        .iter()
        .find(|c| c.id == controller)
        .map_or(&[][..], |c| c.params);
    if params.is_empty() {
        return write!(f, "it takes no parameters");
    }
    let list: Vec<String> = params
        .iter()
        .map(|p| format!("{} (default {})", p.name, p.default))
        .collect();
    write!(f, "parameters: {}", list.join(", "))
}
