//! The run recorder both runners report through. A runner hands it, per flow, what its sender
//! read periodically, its controller's `discern::cwnd` events, and at the end the flow's outcome;
//! the recorder alone turns those into [`FlowSummary`]s, [`FlowSeries`] and verdict counts, so
//! goodput, the sample interval and how a series carries a controller's ssthresh have one
//! definition for both runners.

use std::time::{Duration, Instant};

use super::{FlowQueue, FlowSeries, FlowSummary, Outcome, Sample, Verdicts};
use crate::capture::{CwndEvent, Verdict};

/// How often a runner reads every active flow's sender, besides its controller's events.
pub const SAMPLE_INTERVAL: Duration = Duration::from_millis(10);

/// Seconds as reports give them: nanoseconds over 1e9, the simulator's own conversion, which
/// its byte-identical outputs depend on (`Duration::as_secs_f64` rounds differently).
pub fn secs(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e9
}

/// The sender's own loss and congestion accounting at the end of a flow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SenderCounts {
    pub lost_packets: u64,
    pub congestion_events: u64,
    /// Flow control, rather than the congestion controller, held the sender back.
    pub flow_control_limited: bool,
}

impl SenderCounts {
    /// quinn's figures, the same whether quinn-proto is driven by the simulator or by quinn.
    pub fn of_quinn(stats: &quinn_proto::ConnectionStats) -> Self {
        Self {
            lost_packets: stats.path.lost_packets,
            congestion_events: stats.path.congestion_events,
            flow_control_limited: stats.frame_tx.data_blocked > 0
                || stats.frame_tx.stream_data_blocked > 0,
        }
    }
}

/// What a runner knows of one flow when the run ends.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlowOutcome {
    pub index: usize,
    pub controller: String,
    /// Since the run's start.
    pub start: Duration,
    /// Since the run's start: when the last byte arrived, or when the flow was stopped.
    pub end: Duration,
    pub completed: bool,
    /// The sender's handshake completed.
    pub handshake: bool,
    /// The transfer's size; `None` for a flow that sends until the run ends.
    pub asked: Option<u64>,
    /// Application bytes received.
    pub delivered: u64,
    /// Of `delivered`, those checked against the bytes sent.
    pub checked: u64,
    pub packets_delivered: u64,
    pub verified: bool,
    pub sender: SenderCounts,
    /// Where the runner sees every packet of the flow (the simulator).
    pub queue: Option<FlowQueue>,
    /// Why the receiver closed the connection before the flow ended, if it did.
    pub receiver_closed: Option<String>,
    /// A receiver's own account of its ACKs, scored against the sender's recovery.
    pub receiver_acks: Option<super::ReceiverAcks>,
}

impl FlowOutcome {
    fn summary(&self, verdicts: Verdicts) -> FlowSummary {
        let span = self.end.saturating_sub(self.start);
        let nanos = span.as_nanos();
        FlowSummary {
            flow: self.index,
            controller: self.controller.clone(),
            outcome: Outcome::of(
                self.handshake,
                self.completed,
                self.receiver_closed.is_some(),
                self.delivered,
                self.asked,
            ),
            bytes_asked: self.asked,
            bytes_delivered: self.delivered,
            bytes_verified: self.checked,
            packets_delivered: self.packets_delivered,
            goodput_bps: if nanos > 0 {
                self.delivered as f64 * 8.0 * 1e9 / nanos as f64
            } else {
                0.0
            },
            start_s: secs(self.start),
            completion_time_s: self.completed.then(|| secs(span)),
            lost_packets: self.sender.lost_packets,
            congestion_events: self.sender.congestion_events,
            verdicts,
            // The runner that knows the truth adds it (the simulator).
            verdict_accuracy: None,
            verified: self.verified,
            flow_control_limited: self.sender.flow_control_limited,
            queue: self.queue,
            receiver_closed: self.receiver_closed.clone(),
            receiver_acks: self.receiver_acks,
        }
    }
}

/// What a runner read of a flow's sender at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Reading {
    /// Since the run's start.
    pub at: Duration,
    pub cwnd_bytes: u64,
    /// Where the sender reports one itself (kernel TCP); otherwise the series carries the one
    /// of the controller's last event.
    pub ssthresh_bytes: Option<u64>,
    pub rtt_s: f64,
    /// Application bytes received by then.
    pub delivered_bytes: u64,
}

/// Which controller events become samples of the series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventSamples {
    /// Every event that reports a window.
    All,
    /// At most one per millisecond between two periodic readings: the latest replaces an
    /// earlier one of the same millisecond.
    OnePerMs,
}

/// One flow's series and verdicts as the run goes.
#[derive(Debug, Clone)]
struct FlowLog {
    verdicts: Verdicts,
    /// The controller's, from its latest event that reported a window.
    ssthresh: Option<u64>,
    samples: Vec<Sample>,
    /// The millisecond of the latest event sample, since the latest periodic one.
    last_event_ms: Option<u128>,
}

impl FlowLog {
    fn new() -> Self {
        Self {
            verdicts: Verdicts::default(),
            ssthresh: None,
            samples: Vec::new(),
            last_event_ms: None,
        }
    }

    fn reading(&mut self, r: Reading) {
        self.last_event_ms = None;
        self.samples.push(Sample {
            t_s: secs(r.at),
            cwnd_bytes: r.cwnd_bytes,
            ssthresh_bytes: r.ssthresh_bytes.or(self.ssthresh),
            rtt_s: r.rtt_s,
            delivered_bytes: r.delivered_bytes,
        });
    }

    fn event(&mut self, e: &CwndEvent, sender: Option<Reading>, thin: EventSamples) {
        if e.loss {
            if let Some(verdict) = e.verdict {
                match verdict {
                    Verdict::Random => self.verdicts.random += 1,
                    Verdict::Congestion => self.verdicts.congestion += 1,
                }
                if e.ecn_mark {
                    self.verdicts.ecn_marks += 1;
                }
            }
        }
        let Some(window) = e.window else { return };
        self.ssthresh = window.ssthresh;
        let Some(r) = sender else { return };
        let sample = Sample {
            t_s: secs(r.at),
            cwnd_bytes: window.cwnd,
            ssthresh_bytes: self.ssthresh,
            rtt_s: r.rtt_s,
            delivered_bytes: r.delivered_bytes,
        };
        if thin == EventSamples::OnePerMs {
            let ms = r.at.as_millis();
            if self.last_event_ms == Some(ms) {
                if let Some(last) = self.samples.last_mut() {
                    *last = sample;
                    return;
                }
            }
            self.last_event_ms = Some(ms);
        }
        self.samples.push(sample);
    }
}

/// Records every flow of one run.
#[derive(Debug, Clone)]
pub struct Recorder {
    flows: Vec<FlowLog>,
    events: EventSamples,
}

impl Recorder {
    /// A recorder for flows `0..flows`.
    pub fn new(flows: usize, events: EventSamples) -> Self {
        Self {
            flows: vec![FlowLog::new(); flows],
            events,
        }
    }

    /// A periodic reading of `flow`'s sender.
    pub fn reading(&mut self, flow: usize, r: Reading) {
        if let Some(log) = self.flows.get_mut(flow) {
            log.reading(r);
        }
    }

    /// An event of the controller of flow `e.flow`, with its sender as read at the event. An
    /// event counts its verdict and updates the ssthresh either way; it is a sample, with the
    /// event's own window, only if it reports one and the sender could be read (`Some`).
    pub fn event(&mut self, e: &CwndEvent, sender: Option<Reading>) {
        if let Some(log) = self.flows.get_mut(e.flow) {
            log.event(e, sender, self.events);
        }
    }

    /// The latest sample of `flow`.
    pub fn last_sample(&self, flow: usize) -> Option<&Sample> {
        self.flows.get(flow).and_then(|log| log.samples.last())
    }

    /// For a runner that gets a flow's events only after the run: its periodic `readings` and
    /// its controller's events among `events` in time order (`epoch` is the run's start). The
    /// sender could not be read at an event, so an event sample carries the RTT and delivered
    /// bytes of the sample before it.
    pub fn replay(
        &mut self,
        flow: usize,
        readings: &[Reading],
        events: &[CwndEvent],
        epoch: Instant,
    ) {
        let Some(log) = self.flows.get_mut(flow) else {
            return;
        };
        let at = |e: &CwndEvent| e.at.saturating_duration_since(epoch);
        let mut readings = readings.iter().peekable();
        let mut events = events.iter().filter(|e| e.flow == flow).peekable();
        loop {
            match (readings.peek(), events.peek()) {
                (None, None) => break,
                (Some(r), Some(e)) if at(e) >= r.at => log.reading(**r),
                (Some(r), None) => log.reading(**r),
                (_, Some(e)) => {
                    let before = log.samples.last();
                    let sender = Reading {
                        at: at(e),
                        cwnd_bytes: 0,
                        ssthresh_bytes: None,
                        rtt_s: before.map_or(0.0, |s| s.rtt_s),
                        delivered_bytes: before.map_or(0, |s| s.delivered_bytes),
                    };
                    log.event(e, Some(sender), self.events);
                    events.next();
                    continue;
                }
            }
            readings.next();
        }
    }

    /// The summaries and series of the flows in `outcomes`, in that order.
    pub fn finish(
        mut self,
        outcomes: impl IntoIterator<Item = FlowOutcome>,
    ) -> (Vec<FlowSummary>, Vec<FlowSeries>) {
        outcomes
            .into_iter()
            .map(|o| {
                let log = self
                    .flows
                    .get_mut(o.index)
                    .map(|log| std::mem::replace(log, FlowLog::new()))
                    .unwrap_or_else(FlowLog::new);
                let series = FlowSeries {
                    flow: o.index,
                    controller: o.controller.clone(),
                    samples: log.samples,
                };
                (o.summary(log.verdicts), series)
            })
            .unzip()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::Window;

    fn reading(ms: u64, cwnd: u64, delivered: u64) -> Reading {
        Reading {
            at: Duration::from_millis(ms),
            cwnd_bytes: cwnd,
            ssthresh_bytes: None,
            rtt_s: 0.02,
            delivered_bytes: delivered,
        }
    }

    fn event(epoch: Instant, ms: u64, cwnd: u64, ssthresh: Option<u64>, loss: bool) -> CwndEvent {
        CwndEvent {
            flow: 0,
            at: epoch + Duration::from_millis(ms),
            loss,
            window: Some(Window { cwnd, ssthresh }),
            verdict: loss.then_some(Verdict::Random),
            sent_age_us: None,
            delay: None,
            ecn_mark: false,
        }
    }

    #[test]
    fn replayed_events_interleave_with_readings() {
        let epoch = Instant::now();
        let events = [
            event(epoch, 15, 5000, None, false),
            event(epoch, 25, 3000, Some(3000), true),
        ];
        let readings = [
            reading(10, 4000, 100),
            reading(20, 5000, 200),
            reading(30, 3000, 300),
        ];
        let mut rec = Recorder::new(1, EventSamples::All);
        rec.replay(0, &readings, &events, epoch);
        let outcome = FlowOutcome {
            end: Duration::from_secs(1),
            delivered: 300,
            ..FlowOutcome::default()
        };
        let (summaries, series) = rec.finish([outcome]);
        let got: Vec<(u64, Option<u64>, u64)> = series[0]
            .samples
            .iter()
            .map(|s| (s.cwnd_bytes, s.ssthresh_bytes, s.delivered_bytes))
            .collect();
        assert_eq!(
            got,
            vec![
                (4000, None, 100),
                (5000, None, 100),
                (5000, None, 200),
                (3000, Some(3000), 200),
                (3000, Some(3000), 300),
            ]
        );
        assert!(series[0].samples.windows(2).all(|w| w[0].t_s <= w[1].t_s));
        let v = summaries[0].verdicts;
        assert_eq!((v.random, v.congestion), (1, 0));
        assert_eq!(summaries[0].goodput_bps, 2400.0);
        assert_eq!(summaries[0].completion_time_s, None);
    }

    #[test]
    fn event_samples_of_one_millisecond_keep_the_latest() {
        let epoch = Instant::now();
        let mut rec = Recorder::new(1, EventSamples::OnePerMs);
        let at = |us: u64| Reading {
            at: Duration::from_micros(us),
            ..reading(0, 0, 0)
        };
        rec.event(&event(epoch, 0, 1000, None, false), Some(at(1_100)));
        rec.event(&event(epoch, 0, 2000, None, false), Some(at(1_900)));
        rec.reading(0, at(1_950));
        rec.event(&event(epoch, 0, 3000, None, false), Some(at(1_990)));
        rec.event(&event(epoch, 0, 4000, None, false), Some(at(2_000)));
        let (_, series) = rec.finish([FlowOutcome::default()]);
        let cwnds: Vec<u64> = series[0].samples.iter().map(|s| s.cwnd_bytes).collect();
        assert_eq!(cwnds, vec![2000, 0, 3000, 4000]);
    }
}
