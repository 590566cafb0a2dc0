//! `tracing` events a program can read, and their decoded form, [`Record`].
//!
//! Window changes and loss decisions go to target [`TARGET`] (`discern::cwnd`), recovered ACK
//! delays to [`RTT_TARGET`] (`discern::rtt`), so that a subscriber can take one without the other.
//! `discern`'s default algorithm also reports, at DEBUG on [`ROUND_TARGET`] (`discern::round`),
//! what it read at the end of each round trip (the standing queue, the noise, whose queue it is):
//! the state its window decisions follow from, for a reader tracing a run, not for the harness.
//! The field names are the constants of [`field`]:
//!
//! | field | on | meaning |
//! |---|---|---|
//! | `flow` | all | process-unique id of the controller instance (one per connection path) |
//! | `controller` | all | the controller's id, e.g. `composite`, `composite+quinn-cubic` |
//! | `acked_bytes` | window, loss | bytes acknowledged since the controller was built (a sender's delivered bytes) |
//! | `t_us` | all | when the callback happened, in microseconds since the controller was built (the `now` quinn passed, not the subscriber's clock) |
//! | `event` | all | `window` (the window or state changed), `loss` (a loss decision) or `rtt` (an ACK frame's delay recovered) |
//! | `cwnd`, `ssthresh` | window, loss | bytes (`ssthresh` is `u64::MAX` before the first reduction) |
//! | `state` | window, loss | `slow-start`, `avoidance` or `recovery` |
//! | `verdict` | loss | `random` or `congestion` |
//! | `reduced` | loss | whether the window was reduced |
//! | `lost_packets`, `lost_bytes` | loss | this event's losses |
//! | `losses_in_window` | loss | packets lost so far in this event's window |
//! | `sent_age_us` | loss | `now - sent` of the largest lost packet |
//! | `rtt_us`, `srtt_us`, `min_rtt_us` | loss | the RTT evidence; `srtt_us` is the average the classifier compared against (the TCP-style one for `composite` and `modified-sack`, quinn's otherwise) |
//! | `threshold_us` | loss | the classifier's threshold, when it has one |
//! | `reason` | loss | the rule that decided |
//! | `frame_age_us` | rtt | `now` minus when the ACK frame whose delay was recovered was processed |
//! | `sent_age_us` | rtt | `now` minus when that frame's newest packet was sent |
//! | `rtt_us` | rtt | that frame's raw sample (ACK delay included) |
//! | `ack_delay_us` | rtt | the ACK delay recovered for it: what the receiver claimed, as far as quinn applied it |
//! | `credited_us` | rtt | the part of that delay the classifiers take out of the sample (`rtt.rs`, "What is credited"): none on a frame the receiver owed at once |
//! | `owd_hint_us` | rtt | its forward one-way-delay hint, the credited delay removed |
//!
//! Window events are `TRACE` (there is one per ACK in slow start), loss decisions `DEBUG`,
//! recovered ACK delays `TRACE` (one per ACK frame). Each is built only when a subscriber wants
//! it. [`Record::decode`] turns an event back into typed values, for a `tracing` layer that
//! collects them (the harness does exactly that).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use std::time::Instant;

use tracing::field::{Field, Visit};
use tracing::Level;

use crate::event::{CongestionEvent, Decision, State, Verdict};
use crate::rtt::Resolved;

/// Target of window and loss events.
pub const TARGET: &str = "discern::cwnd";
/// Target of recovered-ACK-delay events.
pub const RTT_TARGET: &str = "discern::rtt";
/// Target of `discern`'s end-of-round events (`crate::short_queue`): free-form fields, read by
/// people, not decoded.
pub const ROUND_TARGET: &str = "discern::round";

/// The names of the events' fields.
pub mod field {
    /// Process-unique id of the controller instance (one per connection path).
    pub const FLOW: &str = "flow";
    /// The controller's id, e.g. `composite` or `composite+quinn-cubic`.
    pub const CONTROLLER: &str = "controller";
    /// `window`, `loss` or `rtt`: which kind of event this is.
    pub const EVENT: &str = "event";
    /// When the callback happened, in microseconds since the controller was built.
    pub const T_US: &str = "t_us";
    /// Bytes acknowledged since the controller was built: a sender's delivered bytes.
    pub const ACKED_BYTES: &str = "acked_bytes";
    /// Congestion window after the event, in bytes.
    pub const CWND: &str = "cwnd";
    /// Slow-start threshold in bytes; `u64::MAX` before the first reduction.
    pub const SSTHRESH: &str = "ssthresh";
    /// `slow-start`, `avoidance` or `recovery`.
    pub const STATE: &str = "state";
    /// `random` or `congestion`.
    pub const VERDICT: &str = "verdict";
    /// Whether the loss reduced the window.
    pub const REDUCED: &str = "reduced";
    /// Packets lost in this congestion event.
    pub const LOST_PACKETS: &str = "lost_packets";
    /// Bytes lost in this congestion event.
    pub const LOST_BYTES: &str = "lost_bytes";
    /// Packets lost so far in this event's window.
    pub const LOSSES_IN_WINDOW: &str = "losses_in_window";
    /// `now - sent`, in microseconds, of the largest lost packet (loss events) or of the ACK
    /// frame's newest packet (rtt events).
    pub const SENT_AGE_US: &str = "sent_age_us";
    /// Latest RTT sample, in microseconds (rtt events: the raw sample, ACK delay included).
    pub const RTT_US: &str = "rtt_us";
    /// Smoothed RTT the classifier compared against, in microseconds.
    pub const SRTT_US: &str = "srtt_us";
    /// Minimum RTT seen, in microseconds.
    pub const MIN_RTT_US: &str = "min_rtt_us";
    /// The classifier's threshold in microseconds, when it has one.
    pub const THRESHOLD_US: &str = "threshold_us";
    /// The rule that decided the verdict.
    pub const REASON: &str = "reason";
    /// `now` minus when the ACK frame whose delay was recovered was processed, in microseconds.
    pub const FRAME_AGE_US: &str = "frame_age_us";
    /// The ACK delay recovered for the frame, in microseconds.
    pub const ACK_DELAY_US: &str = "ack_delay_us";
    /// The part of the recovered ACK delay the classifiers take out of the frame's sample, in
    /// microseconds.
    pub const CREDITED_US: &str = "credited_us";
    /// The frame's forward one-way-delay hint ([`crate::event::RttSample::owd_hint`]), in
    /// microseconds.
    pub const OWD_HINT_US: &str = "owd_hint_us";
}

/// One event, decoded.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Record {
    /// A `window` event: the window or the state changed.
    Window(WindowRecord),
    /// A `loss` event: a loss decision.
    Loss(LossRecord),
    /// An `rtt` event: an ACK frame's delay recovered.
    Rtt(RttRecord),
}

/// Which controller instance an event is about, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Origin {
    /// Process-unique id of the controller instance, as in the `flow` field of the events.
    pub flow: u64,
    /// The controller's id, e.g. `composite` or `composite+quinn-cubic`.
    pub controller: String,
    /// Microseconds since the controller was built.
    pub t_us: u64,
}

/// The window or the state changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WindowRecord {
    /// Which instance, and when.
    pub origin: Origin,
    /// Congestion window after the change, in bytes.
    pub cwnd: u64,
    /// `None` before the first reduction.
    pub ssthresh: Option<u64>,
    /// Controller state after the change.
    pub state: State,
    /// Bytes acknowledged since the controller was built.
    pub acked_bytes: u64,
}

/// A loss decision, with its evidence, and the window after it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LossRecord {
    /// Window and state after the decision.
    pub window: WindowRecord,
    /// Whether the classifier called the loss random or congestion.
    pub verdict: Verdict,
    /// Whether the window was reduced (a random loss leaves it alone).
    pub reduced: bool,
    /// Packets lost in this congestion event (`ceil(lost_bytes / MSS)`).
    pub lost_packets: u64,
    /// Bytes lost in this congestion event.
    pub lost_bytes: u64,
    /// Packets lost so far in this event's window, this event's included.
    pub losses_in_window: u64,
    /// `now - sent` of the largest lost packet, in microseconds.
    pub sent_age_us: u64,
    /// Latest RTT sample, in microseconds.
    pub rtt_us: u64,
    /// Smoothed RTT the classifier compared against, in microseconds (TCP-style for `composite` and
    /// `modified-sack`, quinn's otherwise).
    pub srtt_us: u64,
    /// Minimum RTT seen, in microseconds.
    pub min_rtt_us: u64,
    /// The classifier's threshold in microseconds, when it has one.
    pub threshold_us: Option<u64>,
    /// The rule that decided.
    pub reason: String,
}

/// An ACK frame whose ACK delay was recovered, one frame after it arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct RttRecord {
    /// Process-unique id of the controller instance, as in the `flow` field of the events.
    pub flow: u64,
    /// When the delay was recovered, in microseconds since the controller was built.
    pub t_us: u64,
    /// Emission time minus when the frame was processed.
    pub frame_age_us: u64,
    /// Emission time minus when the frame's newest packet was sent.
    pub sent_age_us: u64,
    /// The frame's raw sample, ACK delay included.
    pub rtt_us: u64,
    /// The ACK delay recovered for the frame, in microseconds: what the receiver claimed, as
    /// far as quinn applied it.
    pub ack_delay_us: u64,
    /// The part of it the classifiers take out of the frame's sample, in microseconds: none on a
    /// frame the receiver owed at once.
    pub credited_us: u64,
    /// The frame's forward one-way-delay hint ([`crate::event::RttSample::owd_hint`]), in
    /// microseconds.
    pub owd_hint_us: u64,
}

/// One field's value, as a log carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValue<'a> {
    /// A number (every numeric field is a non-negative integer).
    U64(u64),
    /// A flag, such as `reduced`.
    Bool(bool),
    /// A word or phrase, such as `event`, `verdict` or `reason`.
    Str(&'a str),
}

impl Record {
    /// The record an event of [`TARGET`] or [`RTT_TARGET`] carries; `None` for other events or
    /// ones missing a field.
    pub fn decode(event: &tracing::Event<'_>) -> Option<Record> {
        let target = event.metadata().target();
        if target != TARGET && target != RTT_TARGET {
            return None;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        fields.into_record()
    }

    /// The record an event's fields make, wherever they were read from (a JSON log line, say);
    /// `None` if a field is missing or the event is not one of this crate's.
    pub fn from_fields<'a>(
        fields: impl IntoIterator<Item = (&'a str, FieldValue<'a>)>,
    ) -> Option<Record> {
        let mut all = Fields::default();
        for (name, value) in fields {
            match value {
                FieldValue::U64(v) => all.numbers.push((name.to_owned(), v)),
                FieldValue::Bool(v) => all.flags.push((name.to_owned(), v)),
                FieldValue::Str(v) => all.texts.push((name.to_owned(), v.to_owned())),
            }
        }
        all.into_record()
    }
}

/// Every field an event may carry, as recorded.
#[derive(Default)]
struct Fields {
    numbers: Vec<(String, u64)>,
    texts: Vec<(String, String)>,
    flags: Vec<(String, bool)>,
}

impl Fields {
    fn number(&self, name: &str) -> Option<u64> {
        self.numbers
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, v)| v)
    }

    fn flag(&self, name: &str) -> Option<bool> {
        self.flags.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }

    fn text(&self, name: &str) -> Option<&str> {
        self.texts
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn into_record(self) -> Option<Record> {
        let origin = || {
            Some(Origin {
                flow: self.number(field::FLOW)?,
                controller: self.text(field::CONTROLLER)?.to_owned(),
                t_us: self.number(field::T_US)?,
            })
        };
        let window = || {
            Some(WindowRecord {
                origin: origin()?,
                cwnd: self.number(field::CWND)?,
                ssthresh: self.number(field::SSTHRESH).filter(|&s| s != u64::MAX),
                state: State::parse(self.text(field::STATE)?)?,
                acked_bytes: self.number(field::ACKED_BYTES)?,
            })
        };
        match self.text(field::EVENT)? {
            "window" => Some(Record::Window(window()?)),
            "loss" => Some(Record::Loss(LossRecord {
                window: window()?,
                verdict: Verdict::parse(self.text(field::VERDICT)?)?,
                reduced: self.flag(field::REDUCED)?,
                lost_packets: self.number(field::LOST_PACKETS)?,
                lost_bytes: self.number(field::LOST_BYTES)?,
                losses_in_window: self.number(field::LOSSES_IN_WINDOW)?,
                sent_age_us: self.number(field::SENT_AGE_US)?,
                rtt_us: self.number(field::RTT_US)?,
                srtt_us: self.number(field::SRTT_US)?,
                min_rtt_us: self.number(field::MIN_RTT_US)?,
                threshold_us: self.number(field::THRESHOLD_US),
                reason: self.text(field::REASON)?.to_owned(),
            })),
            "rtt" => Some(Record::Rtt(RttRecord {
                flow: self.number(field::FLOW)?,
                t_us: self.number(field::T_US)?,
                frame_age_us: self.number(field::FRAME_AGE_US)?,
                sent_age_us: self.number(field::SENT_AGE_US)?,
                rtt_us: self.number(field::RTT_US)?,
                ack_delay_us: self.number(field::ACK_DELAY_US)?,
                credited_us: self.number(field::CREDITED_US)?,
                owd_hint_us: self.number(field::OWD_HINT_US)?,
            })),
            _ => None,
        }
    }
}

impl Visit for Fields {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.numbers.push((field.name().to_owned(), value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if let Ok(value) = u64::try_from(value) {
            self.numbers.push((field.name().to_owned(), value));
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.flags.push((field.name().to_owned(), value));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.texts.push((field.name().to_owned(), value.to_owned()));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.texts
            .push((field.name().to_owned(), format!("{value:?}")));
    }
}

/// A process-unique id for a new controller instance.
pub(crate) fn next_flow_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// What the logs say about a controller at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Snapshot {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub state: State,
}

/// Names a controller instance in its events, and dates them. A clone is another instance
/// (quinn clones a controller for a new path), so it gets a flow id of its own.
#[derive(Debug)]
pub(crate) struct Tracer {
    pub flow: u64,
    pub controller: Arc<str>,
    /// When the controller was built: events carry their time since then.
    epoch: Instant,
    /// The latest callback that had a time (quinn's MTU update has none); `t_us` is computed
    /// from it only when an event is emitted, as most callbacks emit none.
    last: Instant,
    /// Bytes acknowledged since the controller was built.
    acked: u64,
}

impl Clone for Tracer {
    fn clone(&self) -> Self {
        Self {
            flow: next_flow_id(),
            controller: Arc::clone(&self.controller),
            epoch: self.epoch,
            last: self.last,
            acked: 0,
        }
    }
}

impl Tracer {
    pub fn new(controller: Arc<str>, epoch: Instant) -> Self {
        Self {
            flow: next_flow_id(),
            controller,
            epoch,
            last: epoch,
            acked: 0,
        }
    }

    /// Counts `bytes` acknowledged.
    pub fn acked(&mut self, bytes: u64) {
        self.acked = self.acked.saturating_add(bytes);
    }

    /// Dates the events that follow at `now`.
    pub fn at(&mut self, now: Instant) {
        self.last = now;
    }

    fn t_us_of(&self, now: Instant) -> u64 {
        micros(now.saturating_duration_since(self.epoch))
    }

    /// Emits a `window` event if anything the logs show changed.
    pub fn window_change(&self, before: Snapshot, after: Snapshot) {
        if before != after {
            tracing::event!(
                target: TARGET,
                Level::TRACE,
                flow = self.flow,
                controller = &*self.controller,
                t_us = self.t_us_of(self.last),
                acked_bytes = self.acked,
                event = "window",
                cwnd = after.cwnd,
                ssthresh = after.ssthresh,
                state = after.state.as_str(),
            );
        }
    }

    pub fn decision(&self, event: &CongestionEvent, decision: &Decision, after: Snapshot) {
        let evidence = &decision.evidence;
        tracing::event!(
            target: TARGET,
            Level::DEBUG,
            flow = self.flow,
            controller = &*self.controller,
            t_us = self.t_us_of(self.last),
            acked_bytes = self.acked,
            event = "loss",
            cwnd = after.cwnd,
            ssthresh = after.ssthresh,
            state = after.state.as_str(),
            verdict = decision.verdict.as_str(),
            reduced = decision.reduced,
            lost_packets = event.lost_packets,
            lost_bytes = event.lost_bytes,
            losses_in_window = evidence.losses_in_window,
            sent_age_us = micros(event.now.saturating_duration_since(event.sent)),
            rtt_us = micros(evidence.rtt.latest),
            srtt_us = micros(evidence.rtt.smoothed),
            min_rtt_us = micros(evidence.rtt.min),
            threshold_us = evidence.threshold.map(micros),
            reason = evidence.reason,
        );
    }
}

/// Emits an `rtt` event for a frame whose ACK delay was recovered at `now`, if a subscriber wants
/// them; otherwise costs one interest check.
pub(crate) fn rtt_resolved(tracer: &Tracer, now: Instant, frame: &Resolved) {
    if !tracing::enabled!(target: RTT_TARGET, Level::TRACE) {
        return;
    }
    tracing::event!(
        target: RTT_TARGET,
        Level::TRACE,
        flow = tracer.flow,
        controller = &*tracer.controller,
        t_us = tracer.t_us_of(now),
        event = "rtt",
        frame_age_us = micros(now.saturating_duration_since(frame.at)),
        sent_age_us = micros(now.saturating_duration_since(frame.sent)),
        rtt_us = micros(frame.rtt.latest),
        ack_delay_us = micros(frame.claimed),
        credited_us = micros(frame.rtt.ack_delay),
        owd_hint_us = micros(frame.rtt.owd_hint()),
    );
}

/// A controller body whose window the logs follow.
pub(crate) trait Traced {
    fn snapshot(&self) -> Snapshot;
}

/// Runs `change` on `body` at `now` (`None`: a callback without a time) and emits a `window`
/// event if it changed what the logs show. Most ACKs change nothing worth logging and most
/// processes log nothing at this level, so the snapshots are taken only when a subscriber wants
/// window events.
pub(crate) fn log_window_change<B: Traced>(
    tracer: &mut Tracer,
    body: &mut B,
    now: Option<Instant>,
    change: impl FnOnce(&mut B),
) {
    if let Some(now) = now {
        tracer.at(now);
    }
    let before = tracing::enabled!(target: TARGET, Level::TRACE).then(|| body.snapshot());
    change(body);
    if let Some(before) = before {
        tracer.window_change(before, body.snapshot());
    }
}

/// Runs `decide` on `body` for `event` and emits the `loss` decision it returns, and a `window`
/// event if the window changed. `decide` gets the snapshot from before the event.
pub(crate) fn log_decision<B: Traced>(
    tracer: &mut Tracer,
    body: &mut B,
    event: &CongestionEvent,
    decide: impl FnOnce(&mut B, Snapshot) -> Decision,
) {
    tracer.at(event.now);
    let before = body.snapshot();
    let decision = decide(body, before);
    let after = body.snapshot();
    tracer.decision(event, &decision, after);
    tracer.window_change(before, after);
}

/// `d` in whole microseconds, saturating.
pub(crate) fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
