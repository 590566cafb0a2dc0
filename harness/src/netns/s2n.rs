//! The receiving endpoint of a flow with `receiver = "s2n-quic"`: an s2n-quic server in the
//! receiver's namespace that accepts the sender's stream, reads it to the end and checks every
//! byte as the quinn receiver does, while an event subscriber records what the receiver knows
//! of its own ACKs.
//!
//! s2n-quic acknowledges every tenth ack-eliciting packet, or after its `max_ack_delay` of
//! 25 ms, and at once on a gap or a reordered packet (`s2n-quic-transport/src/ack/ack_manager.rs`,
//! `on_processed_packet`: `packet_tolerance = 10`; the 25 ms is
//! `s2n-quic-core/src/transport/parameters/mod.rs`, `MaxAckDelay` RECOMMENDED). This module sets
//! none of that: the point is the stack as its users get it.
//!
//! **The encoded ACK delay.** No s2n-quic event carries it: `FrameSent` reports an ACK frame's
//! largest acknowledged packet but not its delay, and the `AckDelay` event measures from the
//! *first* packet that made an ACK pending, not from the largest one. The delay is rebuilt from
//! two events exactly as `AckManager::ack_delay` computes it: the frame's transmission time (the
//! `FrameSent` timestamp, which is the `current_time` its writer encodes with) minus the arrival
//! of its largest acknowledged packet (the `PacketReceived` timestamp, the datagram's, which is
//! what `on_processed_packet` stores), in whole microseconds, encoded with the ACK delay exponent
//! 3 (`s2n-quic-core/src/ack/settings.rs`, `Settings::RECOMMENDED`; s2n-quic offers no setting
//! for it) and decoded as the sender decodes it.

use std::collections::BTreeMap;
use std::net::UdpSocket;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use s2n_quic::provider::event::{events, Subscriber};
use s2n_quic::Server;
use tokio::time::timeout_at;

use super::ack_report::{ReceiverLog, ReportsAcks, SentAck};
use super::received::{Check, Received};
use crate::tls::{ForeignIdentity, ALPN};

/// s2n-quic's ACK delay exponent in the application packet number space.
const ACK_DELAY_EXPONENT: u32 = 3;

/// Packet numbers this far below the largest one a frame acknowledged are forgotten: no ACK
/// frame will name them as its largest again.
const ARRIVALS_KEPT: u64 = 1 << 16;

/// What the flow's s2n-quic receiver needs, its socket bound in its namespace.
pub struct S2nEnd {
    pub socket: UdpSocket,
    pub identity: Arc<ForeignIdentity>,
    /// The stream and connection receive windows, in bytes (the quinn receiver's).
    pub receive_window: u64,
    pub idle_timeout: Duration,
    /// The links' IP MTU, which bounds the datagrams s2n-quic sends and advertises.
    pub mtu: u16,
}

/// The subscriber's record, in microseconds of s2n-quic's own clock.
#[derive(Debug, Default)]
struct Raw {
    /// The instant s2n-quic's clock counts from, as far as the events have bounded it.
    epoch: Option<Instant>,
    packets: u64,
    datagrams: u64,
    /// Arrival of recent application-space packets, by packet number.
    arrivals: BTreeMap<u64, u64>,
    /// Application-space ACK frames: when sent, and when their largest packet arrived.
    acks: Vec<(u64, u64)>,
}

/// The event subscriber, and the handle to its record.
#[derive(Debug, Clone, Default)]
pub struct AckLog(Arc<Mutex<Raw>>);

impl AckLog {
    /// The record, with the event's time in microseconds of s2n-quic's clock.
    ///
    /// s2n-quic's tokio clock counts from an `Instant` it takes when the endpoint starts and
    /// does not expose. An event's timestamp was read at or before the callback, so `now - ts`
    /// bounds that instant from above; the smallest bound over many events is within
    /// microseconds of it, which puts the receiver's times on the sender's clock.
    fn at(&self, meta: &events::ConnectionMeta) -> (MutexGuard<'_, Raw>, u64) {
        let since = meta.timestamp.duration_since_start();
        let bound = Instant::now().checked_sub(since);
        let mut raw = self.0.lock().unwrap_or_else(|e| e.into_inner());
        raw.epoch = match (raw.epoch, bound) {
            (Some(e), Some(b)) => Some(e.min(b)),
            (e, b) => e.or(b),
        };
        (raw, since.as_micros() as u64)
    }

    /// Datagrams the receiver took in.
    pub fn datagrams(&self) -> u64 {
        self.0.lock().map_or(0, |raw| raw.datagrams)
    }
}

impl ReportsAcks for AckLog {
    fn report(&self) -> ReceiverLog {
        let raw = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some(epoch) = raw.epoch else {
            return ReceiverLog::default();
        };
        let instant = |us: u64| epoch + Duration::from_micros(us);
        let scale = 1u64 << ACK_DELAY_EXPONENT;
        let acks = raw
            .acks
            .iter()
            .map(|&(sent, arrival)| SentAck {
                sent: instant(sent),
                newest_arrival: instant(arrival),
                delay_us: sent.saturating_sub(arrival) / scale * scale,
            })
            .collect();
        ReceiverLog {
            packets: raw.packets,
            acks,
        }
    }
}

impl Subscriber for AckLog {
    type ConnectionContext = ();

    fn create_connection_context(
        &mut self,
        _meta: &events::ConnectionMeta,
        _info: &events::ConnectionInfo,
    ) {
    }

    fn on_datagram_received(
        &mut self,
        _context: &mut (),
        meta: &events::ConnectionMeta,
        _event: &events::DatagramReceived,
    ) {
        self.at(meta).0.datagrams += 1;
    }

    fn on_packet_received(
        &mut self,
        _context: &mut (),
        meta: &events::ConnectionMeta,
        event: &events::PacketReceived,
    ) {
        let (mut raw, at) = self.at(meta);
        raw.packets += 1;
        if let events::PacketHeader::OneRtt { number, .. } = event.packet_header {
            raw.arrivals.entry(number).or_insert(at);
        }
    }

    fn on_frame_sent(
        &mut self,
        _context: &mut (),
        meta: &events::ConnectionMeta,
        event: &events::FrameSent,
    ) {
        let events::PacketHeader::OneRtt { .. } = event.packet_header else {
            return;
        };
        let events::Frame::Ack {
            largest_acknowledged,
            ..
        } = event.frame
        else {
            return;
        };
        let (mut raw, at) = self.at(meta);
        if let Some(&arrival) = raw.arrivals.get(&largest_acknowledged) {
            raw.acks.push((at, arrival));
        }
        let keep = largest_acknowledged.saturating_sub(ARRIVALS_KEPT);
        raw.arrivals = raw.arrivals.split_off(&keep);
    }
}

/// Starts the receiver's endpoint on the current tokio runtime.
fn start(end: S2nEnd, log: AckLog) -> anyhow::Result<Server> {
    let tls = s2n_quic::provider::tls::default::Server::builder()
        .with_certificate(end.identity.cert_pem(), end.identity.key_pem())
        .and_then(|b| b.with_application_protocols([ALPN]))
        .and_then(|b| b.build())
        .map_err(failed("s2n-tls configuration"))?;
    let io = s2n_quic::provider::io::tokio::Builder::default()
        .with_rx_socket(end.socket)
        .and_then(|b| b.with_max_mtu(end.mtu))
        .and_then(|b| b.build())
        .context("s2n-quic socket")?;
    let window = end.receive_window;
    let limits = s2n_quic::provider::limits::Limits::new()
        .with_data_window(window)
        .and_then(|l| l.with_unidirectional_data_window(window))
        .and_then(|l| l.with_max_idle_timeout(end.idle_timeout))
        .map_err(failed("s2n-quic limits"))?;
    Server::builder()
        .with_tls(tls)
        .map_err(failed("s2n-quic TLS"))?
        .with_io(io)
        .map_err(failed("s2n-quic I/O"))?
        .with_limits(limits)
        .map_err(failed("s2n-quic limits"))?
        .with_event(log)
        .map_err(failed("s2n-quic events"))?
        .start()
        .map_err(failed("starting s2n-quic"))
}

/// An s2n-quic builder's error, saying which step failed.
fn failed<E: std::fmt::Display>(what: &'static str) -> impl FnOnce(E) -> anyhow::Error {
    move |e| anyhow!("{what}: {e}")
}

/// Accepts the flow's connection and its stream, and reads it until it ends, the flow's bytes
/// are all in, or `deadline`. The endpoint and the connection travel in the result: dropping
/// either closes the connection, which must stay open until the sender has stopped.
pub async fn receive(end: S2nEnd, mut check: Check, deadline: Instant) -> anyhow::Result<Received> {
    let log = AckLog::default();
    let mut server = start(end, log.clone())?;
    let mut out = Received::new();
    out.acks = Some(Box::new(log.clone()));
    let Ok(Some(mut conn)) = timeout_at(deadline.into(), server.accept()).await else {
        out.endpoint = Some(Box::new(server));
        return Ok(out);
    };
    let stream = timeout_at(deadline.into(), conn.accept_receive_stream()).await;
    if let Ok(stream) = stream {
        let stream = stream.context("s2n-quic: accepting the stream")?;
        let mut stream = stream.ok_or_else(|| anyhow!("s2n-quic: the sender opened no stream"))?;
        loop {
            match timeout_at(deadline.into(), stream.receive()).await {
                Err(_) | Ok(Ok(None)) => break,
                Ok(Ok(Some(chunk))) => {
                    if check.next(&chunk, &mut out) {
                        break;
                    }
                }
                Ok(Err(e)) => {
                    out.closed = Some(closed_here(e)?);
                    break;
                }
            }
        }
    }
    out.packets = log.datagrams();
    out.endpoint = Some(Box::new((server, conn)));
    Ok(out)
}

/// Why the receiver's own endpoint closed the connection (the flow's outcome, as a stock quinn
/// receiver's close is); any other stream error fails the run.
fn closed_here(e: s2n_quic::stream::Error) -> anyhow::Result<String> {
    use s2n_quic::connection::Error as Closed;
    match e {
        s2n_quic::stream::Error::ConnectionError {
            error: error @ Closed::Transport { initiator, .. },
            ..
        } if initiator.is_local() => Ok(format!("s2n-quic: {error}")),
        e => Err(anyhow!("s2n-quic: receiving: {e}")),
    }
}
