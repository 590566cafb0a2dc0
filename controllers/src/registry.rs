//! One registry of controller ids (ARCHITECTURE.md, "The registry") shared by the harness, the
//! examples and users: `tahoe`, `modified-sack:tolerance=0.02`, `composite+quinn-cubic`, ...

use std::error::Error;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use quinn_proto::congestion::{BbrConfig, ControllerFactory, CubicConfig};
use quinn_proto::TransportConfig;

use crate::classify::{Classifier, Spike, Trend, ZigZag, DEFAULT_GRANULARITY};
use crate::param::ParamError;
use crate::{
    CompositeConfig, DiscernConfig, DiscernGrowth, DiscriminatingSackConfig, LossFilterConfig,
    ModifiedSackConfig, ModifiedTahoeConfig, QueueAim, RenoConfig, SackFewConfig,
    SackNewRenoConfig, SlowStartExit, TahoeConfig, VenoConfig, WNewRenoConfig, WestwoodConfig,
};

type Factory = Arc<dyn ControllerFactory + Send + Sync>;

/// A controller id resolved to everything a quinn `TransportConfig` needs.
#[derive(Clone)]
pub struct ControllerSpec {
    id: String,
    factory: Factory,
    packet_threshold: Option<u32>,
}

impl ControllerSpec {
    /// The id as given (trimmed).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The factory to hand to `TransportConfig::congestion_controller_factory`.
    pub fn factory(&self) -> Factory {
        self.factory.clone()
    }

    /// A loss-detection packet threshold the algorithm needs (Modified Tahoe's dupthresh 2).
    pub fn packet_threshold(&self) -> Option<u32> {
        self.packet_threshold
    }

    /// Installs the controller, and any loss-detection setting it needs, in `transport`.
    pub fn apply(&self, transport: &mut TransportConfig) {
        transport.congestion_controller_factory(self.factory.clone());
        if let Some(threshold) = self.packet_threshold {
            transport.packet_threshold(threshold);
        }
    }
}

impl fmt::Debug for ControllerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ControllerSpec")
            .field("id", &self.id)
            .field("packet_threshold", &self.packet_threshold)
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
}

/// Builds `CLASSIFIER+INNER` (with the whole id, for the logs) around the inner factory.
type FilterBuilder = fn(&Call, &str, Factory) -> Result<Factory, ParseError>;

/// A factory and the loss-detection packet threshold it needs, if any.
type Built = (Factory, Option<u32>);

/// A parameter of a controller id, `id:name=value`.
#[derive(Debug, Clone, Copy)]
pub struct ParamInfo {
    /// Name as written after `:`, e.g. `tolerance`.
    pub name: &'static str,
    /// The value used when the id does not set it, as it would be written.
    pub default: &'static str,
    /// One line on what the parameter means and its unit.
    pub help: &'static str,
}

const GRANULARITY: ParamInfo = ParamInfo {
    name: "granularity",
    default: "1ms",
    help: "RTT differences below this are noise",
};

const CATALOG: &[ControllerInfo] = &[
    ControllerInfo {
        id: "tahoe",
        summary: "TCP Tahoe: on loss ssthresh = cwnd/2, cwnd = 1 MSS, slow start",
        params: &[],
        classifier: false,
        build: |_| Ok((Arc::new(TahoeConfig::default()), None)),
        filter: None,
    },
    ControllerInfo {
        id: "reno",
        summary: "TCP Reno: halves on every loss event, several times in one window",
        params: &[],
        classifier: false,
        build: |_| Ok((Arc::new(RenoConfig::default()), None)),
        filter: None,
    },
    ControllerInfo {
        id: "newreno",
        summary: "NewReno with QUIC ACK ranges, i.e. SACK TCP: halves once per window",
        params: &[],
        classifier: false,
        build: |_| Ok((Arc::new(SackNewRenoConfig::default()), None)),
        filter: None,
    },
    ControllerInfo {
        id: "modified-tahoe",
        summary: "paper 001: Tahoe with dupthresh 2, restart at 3 MSS, ssthresh 3/4 cwnd",
        params: &[
            ParamInfo {
                name: "restart_window",
                default: "3",
                help: "window after a loss, in MSS",
            },
            ParamInfo {
                name: "ssthresh_factor",
                default: "0.75",
                help: "ssthresh as a fraction of cwnd at the loss",
            },
            ParamInfo {
                name: "packet_threshold",
                default: "2",
                help: "duplicate-ACK (packet) threshold of loss detection",
            },
        ],
        classifier: false,
        build: modified_tahoe,
        filter: None,
    },
    ControllerInfo {
        id: "modified-sack",
        summary: "paper 000: RTT-deviation tolerance and delayed fast recovery (S_M_LOSS)",
        params: &[
            ParamInfo {
                name: "tolerance",
                default: "0.05",
                help: "largest relative RTT deviation read as random loss",
            },
            GRANULARITY,
        ],
        classifier: true,
        build: |call| Ok((Arc::new(modified_sack(call)?), None)),
        filter: Some(|call, id, inner| filtered(id, modified_sack(call)?.classifier(), inner)),
    },
    ControllerInfo {
        id: "wnewreno",
        summary: "paper 002: NewReno keeping its window below a one-way-delay threshold",
        params: &[
            ParamInfo {
                name: "margin",
                default: "0.15",
                help: "threshold above the minimum one-way delay, as a fraction of it",
            },
            GRANULARITY,
        ],
        classifier: true,
        build: |call| Ok((Arc::new(wnewreno(call)?), None)),
        filter: Some(|call, id, inner| filtered(id, wnewreno(call)?.classifier(), inner)),
    },
    ControllerInfo {
        id: "sack-few",
        summary: "paper 003: SACK with a fractional window increment of alpha MSS per window",
        params: &[ParamInfo {
            name: "alpha",
            default: "0.01",
            help: "window growth per window acknowledged, in MSS (0 to 1)",
        }],
        classifier: false,
        build: |call| {
            let mut config = SackFewConfig::default();
            if let Some(alpha) = call.number("alpha")? {
                config.alpha(alpha).map_err(|e| call.rejected(e))?;
            }
            Ok((Arc::new(config), None))
        },
        filter: None,
    },
    ControllerInfo {
        id: "composite",
        summary: "paper 004: a single loss in the window with RTT <= SRTT is random",
        params: &[GRANULARITY],
        classifier: true,
        build: |call| Ok((Arc::new(composite(call)?), None)),
        filter: Some(|call, id, inner| filtered(id, composite(call)?.classifier(), inner)),
    },
    ControllerInfo {
        id: "veno",
        summary: "TCP Veno: a loss with backlog N < beta packets is random (x4/5), else halve",
        params: &[ParamInfo {
            name: "beta",
            default: "3",
            help: "backlog in packets below which a loss is random",
        }],
        classifier: true,
        build: |call| Ok((Arc::new(veno(call)?), None)),
        filter: Some(|call, id, inner| filtered(id, veno(call)?.classifier(), inner)),
    },
    ControllerInfo {
        id: "westwood",
        summary: "TCP Westwood+: on loss cwnd = ssthresh = bandwidth estimate x min RTT",
        params: &[],
        classifier: false,
        build: |_| Ok((Arc::new(WestwoodConfig::default()), None)),
        filter: None,
    },
    ControllerInfo {
        id: "discern",
        summary: "this crate's own: a loss below the full-queue delay is random; NewReno otherwise",
        params: &[
            ParamInfo {
                name: "beta",
                default: "0.5",
                help: "window factor on a congestion verdict (above 0, below 1)",
            },
            ParamInfo {
                name: "ecn_beta",
                default: "0.8",
                help: "window factor on an ECN-CE mark (RFC 8511's alternative backoff)",
            },
            ParamInfo {
                name: "growth",
                default: "reno",
                help: "growth in congestion avoidance: reno or cubic",
            },
            ParamInfo {
                name: "tolerance",
                default: "0.05",
                help: "how far below the full-queue delay a loss is still congestion (fraction)",
            },
            ParamInfo {
                name: "memory",
                default: "10s",
                help: "how long the full-queue delay is remembered",
            },
            ParamInfo {
                name: "slow_start",
                default: "loss",
                help: "what ends slow start: loss, or delay (a rise of the round's minimum RTT)",
            },
            ParamInfo {
                name: "aqm",
                default: "off",
                help: "on: losses that rise with the queue are congestion before it is full",
            },
            ParamInfo {
                name: "queue",
                default: "short",
                help: "short: keep a queue of a few packets, NewReno's manners against a \
                       buffer-filler; full: the earlier design (growth, tolerance, memory, \
                       slow_start, aqm shape it)",
            },
            GRANULARITY,
        ],
        classifier: true,
        build: |call| Ok((Arc::new(discern(call)?), None)),
        filter: Some(|call, id, inner| filtered(id, discern(call)?.classifier(), inner)),
    },
    ControllerInfo {
        id: "spike",
        summary: "Spike (Cen et al. 2003): random unless the one-way delay is in a spike",
        params: &[
            ParamInfo {
                name: "alpha",
                default: "0.5",
                help: "the spike starts at min + alpha x (max - min) of the one-way delay",
            },
            ParamInfo {
                name: "beta",
                default: "0.333",
                help: "the spike ends at min + beta x (max - min); at most alpha",
            },
            GRANULARITY,
        ],
        classifier: true,
        build: |call| sack_with("spike", spike(call)?),
        filter: Some(|call, id, inner| filtered(id, spike(call)?, inner)),
    },
    ControllerInfo {
        id: "zigzag",
        summary: "ZigZag (Cen et al. 2003): the one-way delay against its mean and deviation",
        params: &[
            ParamInfo {
                name: "alpha",
                default: "0.03125",
                help: "weight of a new sample in the mean and deviation (above 0, at most 0.5)",
            },
            GRANULARITY,
        ],
        classifier: true,
        build: |call| sack_with("zigzag", zigzag(call)?),
        filter: Some(|call, id, inner| filtered(id, zigzag(call)?, inner)),
    },
    ControllerInfo {
        id: "trend",
        summary: "Trend (Hsiao et al. 2005): congestion while the one-way delay rises",
        params: &[
            ParamInfo {
                name: "gamma",
                default: "0.0333",
                help: "weight of a new sample in the smoothed trend",
            },
            ParamInfo {
                name: "threshold",
                default: "0.4",
                help: "smoothed rising fraction above which a loss is congestion",
            },
            GRANULARITY,
        ],
        classifier: true,
        build: |call| sack_with("trend", trend(call)?),
        filter: Some(|call, id, inner| filtered(id, trend(call)?, inner)),
    },
    ControllerInfo {
        id: "quinn-newreno",
        summary: "quinn's own NewReno, unchanged",
        params: &[],
        classifier: false,
        build: |_| {
            Ok((
                Arc::new(quinn_proto::congestion::NewRenoConfig::default()),
                None,
            ))
        },
        filter: None,
    },
    ControllerInfo {
        id: "quinn-cubic",
        summary: "quinn's own CUBIC, unchanged",
        params: &[],
        classifier: false,
        build: |_| Ok((Arc::new(CubicConfig::default()), None)),
        filter: None,
    },
    ControllerInfo {
        id: "quinn-bbr",
        summary: "quinn's own BBR, unchanged",
        params: &[],
        classifier: false,
        build: |_| Ok((Arc::new(BbrConfig::default()), None)),
        filter: None,
    },
];

/// Every controller id with its parameters. Any `classifier` entry may also stand in front of
/// any entry as `CLASSIFIER+INNER`.
pub fn catalog() -> &'static [ControllerInfo] {
    CATALOG
}

/// Resolves a controller id, with optional parameters (`name:key=value,key=value`) and an
/// optional classifier in front (`classifier[:params]+inner[:params]`).
pub fn parse(id: &str) -> Result<ControllerSpec, ParseError> {
    let id = id.trim();
    let (factory, packet_threshold) = match id.split_once('+') {
        None => parse_single(id)?,
        Some((classifier, inner)) => {
            if inner.contains('+') {
                return Err(ParseError::NestedFilter { id: id.to_owned() });
            }
            let (inner_factory, packet_threshold) = parse_single(inner)?;
            let filter = loss_filter(id, Call::parse(classifier)?, inner_factory)?;
            (filter, packet_threshold)
        }
    };
    Ok(ControllerSpec {
        id: id.to_owned(),
        factory,
        packet_threshold,
    })
}

fn parse_single(text: &str) -> Result<Built, ParseError> {
    let call = Call::parse(text)?;
    (call.info.build)(&call)
}

fn modified_tahoe(call: &Call) -> Result<Built, ParseError> {
    let mut config = ModifiedTahoeConfig::default();
    if let Some(packets) = call.whole("restart_window")? {
        config
            .restart_window(packets)
            .map_err(|e| call.rejected(e))?;
    }
    if let Some(factor) = call.number("ssthresh_factor")? {
        config
            .ssthresh_factor(factor)
            .map_err(|e| call.rejected(e))?;
    }
    let threshold = match call.whole("packet_threshold")? {
        Some(packets) => u32::try_from(packets).map_err(|_| {
            call.bad_value("packet_threshold", "a whole number of packets below 2^32")
        })?,
        None => ModifiedTahoeConfig::DEFAULT_PACKET_THRESHOLD,
    };
    config
        .packet_threshold(threshold)
        .map_err(|e| call.rejected(e))?;
    Ok((Arc::new(config), Some(threshold)))
}

fn veno(call: &Call) -> Result<VenoConfig, ParseError> {
    let mut config = VenoConfig::default();
    if let Some(beta) = call.number("beta")? {
        config.beta(beta).map_err(|e| call.rejected(e))?;
    }
    Ok(config)
}

fn discern(call: &Call) -> Result<DiscernConfig, ParseError> {
    let mut config = DiscernConfig::default();
    if let Some(beta) = call.number("beta")? {
        config.beta(beta).map_err(|e| call.rejected(e))?;
    }
    if let Some(beta) = call.number("ecn_beta")? {
        config.ecn_beta(beta).map_err(|e| call.rejected(e))?;
    }
    if let Some(growth) = call.value("growth", "reno or cubic", |raw| match raw {
        "reno" => Some(DiscernGrowth::Reno),
        "cubic" => Some(DiscernGrowth::Cubic),
        _ => None,
    })? {
        config.growth(growth);
    }
    if let Some(tolerance) = call.number("tolerance")? {
        config.tolerance(tolerance).map_err(|e| call.rejected(e))?;
    }
    if let Some(memory) = call.duration("memory")? {
        config.memory(memory).map_err(|e| call.rejected(e))?;
    }
    if let Some(exit) = call.value("slow_start", "loss or delay", |raw| match raw {
        "loss" => Some(SlowStartExit::Loss),
        "delay" => Some(SlowStartExit::Delay),
        _ => None,
    })? {
        config.slow_start(exit);
    }
    if let Some(on) = call.value("aqm", "on or off", |raw| match raw {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    })? {
        config.aqm(on);
    }
    if let Some(granularity) = call.duration("granularity")? {
        config.granularity(granularity);
    }
    if let Some(aim) = call.value("queue", "short or full", |raw| match raw {
        "short" => Some(QueueAim::Short),
        "full" => Some(QueueAim::Full),
        _ => None,
    })? {
        config.queue(aim);
    }
    // The earlier design's knobs would do nothing to the default: say so rather than ignore them.
    if config.queue_aim() == QueueAim::Short {
        if let Some(name) = config.full_queue_knob_changed() {
            return Err(call.bad_value(
                name,
                "to be given with queue=full: it shapes the earlier design only, e.g. \
                 discern:queue=full,aqm=on",
            ));
        }
    }
    Ok(config)
}

fn modified_sack(call: &Call) -> Result<ModifiedSackConfig, ParseError> {
    let mut config = ModifiedSackConfig::default();
    if let Some(tolerance) = call.number("tolerance")? {
        config.tolerance(tolerance).map_err(|e| call.rejected(e))?;
    }
    if let Some(granularity) = call.duration("granularity")? {
        config.granularity(granularity);
    }
    Ok(config)
}

fn wnewreno(call: &Call) -> Result<WNewRenoConfig, ParseError> {
    let mut config = WNewRenoConfig::default();
    if let Some(margin) = call.number("margin")? {
        config.margin(margin).map_err(|e| call.rejected(e))?;
    }
    if let Some(granularity) = call.duration("granularity")? {
        config.granularity(granularity);
    }
    Ok(config)
}

fn composite(call: &Call) -> Result<CompositeConfig, ParseError> {
    let mut config = CompositeConfig::default();
    if let Some(granularity) = call.duration("granularity")? {
        config.granularity(granularity);
    }
    Ok(config)
}

fn loss_filter(id: &str, call: Call, inner: Factory) -> Result<Factory, ParseError> {
    match call.info.filter {
        Some(filter) => filter(&call, id, inner),
        None => Err(ParseError::NotAClassifier {
            id: call.info.id.to_owned(),
        }),
    }
}

/// SACK TCP's window around `classifier`, for classifiers that have no controller of their own.
fn sack_with<C: Classifier>(id: &'static str, classifier: C) -> Result<Built, ParseError> {
    Ok((
        Arc::new(DiscriminatingSackConfig::new(id, classifier)),
        None,
    ))
}

fn granularity(call: &Call) -> Result<Duration, ParseError> {
    Ok(call.duration("granularity")?.unwrap_or(DEFAULT_GRANULARITY))
}

fn spike(call: &Call) -> Result<Spike, ParseError> {
    let alpha = call.number("alpha")?.unwrap_or(Spike::DEFAULT_ALPHA);
    let beta = call.number("beta")?.unwrap_or(Spike::DEFAULT_BETA);
    Spike::new(alpha, beta, granularity(call)?).map_err(|e| call.rejected(e))
}

fn zigzag(call: &Call) -> Result<ZigZag, ParseError> {
    let alpha = call.number("alpha")?.unwrap_or(ZigZag::DEFAULT_ALPHA);
    ZigZag::new(alpha, granularity(call)?).map_err(|e| call.rejected(e))
}

fn trend(call: &Call) -> Result<Trend, ParseError> {
    let gamma = call.number("gamma")?.unwrap_or(Trend::DEFAULT_GAMMA);
    let threshold = call
        .number("threshold")?
        .unwrap_or(Trend::DEFAULT_THRESHOLD);
    Trend::new(gamma, threshold, granularity(call)?).map_err(|e| call.rejected(e))
}

fn filtered<C: Classifier>(id: &str, classifier: C, inner: Factory) -> Result<Factory, ParseError> {
    Ok(Arc::new(LossFilterConfig::new(id, classifier, inner)))
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
        let info = CATALOG.iter().find(|info| info.id == name).ok_or_else(|| {
            ParseError::UnknownController {
                id: name.to_owned(),
            }
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

    fn bad_value(&self, name: &str, expected: &'static str) -> ParseError {
        ParseError::BadValue {
            controller: self.info.id,
            param: name.to_owned(),
            value: self.raw(name).unwrap_or_default().to_owned(),
            expected,
        }
    }

    /// A value parsed by `parse`, or `None` when the id does not set `name`.
    fn value<T>(
        &self,
        name: &str,
        expected: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, ParseError> {
        self.raw(name)
            .map(|raw| parse(raw).ok_or_else(|| self.bad_value(name, expected)))
            .transpose()
    }

    /// A number; its range is the builder's to check.
    fn number(&self, name: &str) -> Result<Option<f64>, ParseError> {
        self.value(name, "a number such as 0.05", |raw| raw.parse::<f64>().ok())
    }

    /// A whole number; its range is the builder's to check.
    fn whole(&self, name: &str) -> Result<Option<u64>, ParseError> {
        self.value(name, "a whole number such as 3", |raw| {
            raw.parse::<u64>().ok()
        })
    }

    fn duration(&self, name: &str) -> Result<Option<Duration>, ParseError> {
        self.value(
            name,
            "a duration such as 1ms, 500us or 0.01s",
            parse_duration,
        )
    }
}

/// `1ms`, `500us`, `0.01s`, `250ns`.
fn parse_duration(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.trim().parse().ok()?;
    let seconds = match unit.trim() {
        "ns" => value / 1e9,
        "us" => value / 1e6,
        "ms" => value / 1e3,
        "s" => value,
        _ => return None,
    };
    Duration::try_from_secs_f64(seconds).ok()
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
                CATALOG
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
    let mut ids: Vec<&str> = CATALOG.iter().map(|c| c.id).collect();
    ids.push("CLASSIFIER+CONTROLLER");
    ids.join(", ")
}

fn write_params(f: &mut fmt::Formatter<'_>, controller: &str) -> fmt::Result {
    let params = CATALOG
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
