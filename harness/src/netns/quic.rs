//! QUIC flows on real sockets: per flow a quinn client (the sender, one unidirectional stream) in
//! the sender's namespace and a server (the receiver, which checks every byte) in the receiver's,
//! on the calling tokio runtime. The server is quinn, or s2n-quic (`s2n`) for a flow with
//! `receiver = "s2n-quic"`. Each side has its own endpoint; the client connects inside a
//! `capture::SPAN` span, which quinn's connection task inherits, so the controller's events name the
//! flow.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use quinn::{Connection, ConnectionError, Endpoint, EndpointConfig, ReadError, SendStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::timeout_at;
use tracing::Instrument;

use super::received::{Check, Received};
use super::result::FlowResult;
use super::s2n::{self, S2nEnd};
use crate::payload::Pattern;
use crate::report::record::{FlowOutcome, Reading, SenderCounts, SAMPLE_INTERVAL};
use crate::tls;

const CHUNK: usize = 64 * 1024;

/// Everything one QUIC flow needs, sockets already bound in their namespaces.
pub struct QuicFlow {
    pub index: usize,
    pub controller: String,
    pub start: Duration,
    pub bytes: Option<u64>,
    pub seed: u64,
    pub client_socket: UdpSocket,
    pub server_addr: SocketAddr,
    pub client_config: quinn::ClientConfig,
    pub receiver: ReceiverEnd,
}

/// The flow's receiving endpoint, before it starts.
pub enum ReceiverEnd {
    Quinn {
        socket: UdpSocket,
        config: quinn::ServerConfig,
    },
    S2n(S2nEnd),
}

/// The flow's two endpoints and what its tasks share while it runs.
struct Ends {
    index: usize,
    controller: String,
    start: Duration,
    client: Endpoint,
    client_config: quinn::ClientConfig,
    server_addr: SocketAddr,
    pattern: Pattern,
    bytes: Option<u64>,
    /// Bytes the receiver has checked so far.
    delivered: Arc<AtomicU64>,
    epoch: Instant,
    deadline: Instant,
}

/// Runs the flow until it completes or `deadline`.
pub async fn run(flow: QuicFlow, epoch: Instant, deadline: Instant) -> anyhow::Result<FlowResult> {
    let (ends, receiving) = Ends::new(flow, epoch, deadline)?;
    let index = ends.index;
    let server = match &receiving {
        Receiving::Quinn(server) => Some(server.clone()),
        Receiving::S2n(_) => None,
    };
    let receiver = tokio::spawn(
        receiving
            .receive(ends.check(), deadline)
            .instrument(span(index, "receiver")),
    );
    tokio::time::sleep_until((epoch + ends.start).into()).await;
    let sender_span = span(index, "sender");
    let connection = ends.connect().instrument(sender_span.clone()).await?;
    let (stop_sampler, sampler) = ends.sample(connection.clone());
    let send = ends
        .send(&connection)
        .instrument(sender_span)
        .await
        .with_context(|| format!("flow {index}: sending"));

    let received = receiver
        .await
        .map_err(|e| anyhow!("flow {index}: receiver task: {e}"))?;
    let _ = stop_sampler.send(());
    let readings = sampler.await.unwrap_or_default();
    let stats = connection.stats();
    connection.close(0u32.into(), b"done");
    let received = received?;
    // After the receiver closed the connection, the sender's failure is its consequence.
    let _stream = match received.closed {
        None => Some(send?),
        Some(_) => None,
    };
    let end = received
        .completed_at
        .unwrap_or_else(|| deadline.min(Instant::now()));
    if let Some(server) = server {
        server.close(0u32.into(), b"done");
    }
    ends.client.close(0u32.into(), b"done");
    Ok(FlowResult {
        outcome: FlowOutcome {
            index,
            controller: ends.controller,
            start: ends.start,
            end: end.saturating_duration_since(epoch),
            completed: received.completed_at.is_some(),
            // The sender connected before it sent: a failed handshake ends the run with an error.
            handshake: true,
            asked: ends.bytes,
            delivered: ends.delivered.load(Ordering::Relaxed),
            // The receiver counts a chunk only once it has checked it.
            checked: ends.delivered.load(Ordering::Relaxed),
            packets_delivered: received.packets,
            verified: received.verified,
            sender: SenderCounts::of_quinn(&stats),
            // Neither engine attributes its queue's drops and delays to flows (the kernel's
            // counters are per qdisc), so netns summaries leave this out.
            queue: None,
            receiver_closed: received.closed,
            // Scored once the run's records are in (`ack_report`).
            receiver_acks: None,
        },
        min_rtt: Some(stats.path.min_rtt).filter(|d| !d.is_zero()),
        readings,
        receiver_log: received.acks.map(|log| log.report()),
    })
}

/// The flow's receiving endpoint, ready to read.
enum Receiving {
    Quinn(Endpoint),
    S2n(S2nEnd),
}

impl Receiving {
    async fn receive(self, check: Check, deadline: Instant) -> anyhow::Result<Received> {
        match self {
            Receiving::Quinn(server) => receive(server, check, deadline).await,
            Receiving::S2n(end) => s2n::receive(end, check, deadline).await,
        }
    }
}

/// The `capture::SPAN` that attributes the controller's events to flow `index`.
fn span(index: usize, role: &str) -> tracing::Span {
    tracing::info_span!(crate::capture::SPAN, index = index as u64, role = role)
}

impl Ends {
    fn new(flow: QuicFlow, epoch: Instant, deadline: Instant) -> anyhow::Result<(Self, Receiving)> {
        let runtime = Arc::new(quinn::TokioRuntime);
        let receiving = match flow.receiver {
            ReceiverEnd::Quinn { socket, config } => Receiving::Quinn(
                Endpoint::new(
                    EndpointConfig::default(),
                    Some(config),
                    socket,
                    runtime.clone(),
                )
                .context("receiver endpoint")?,
            ),
            ReceiverEnd::S2n(end) => Receiving::S2n(end),
        };
        let client = Endpoint::new(EndpointConfig::default(), None, flow.client_socket, runtime)
            .context("sender endpoint")?;
        let ends = Self {
            index: flow.index,
            controller: flow.controller,
            start: flow.start,
            client,
            client_config: flow.client_config,
            server_addr: flow.server_addr,
            pattern: Pattern::new(flow.seed, flow.index),
            bytes: flow.bytes,
            delivered: Arc::new(AtomicU64::new(0)),
            epoch,
            deadline,
        };
        Ok((ends, receiving))
    }

    /// The receiver's check of this flow's bytes.
    fn check(&self) -> Check {
        Check::new(self.pattern, self.bytes, self.delivered.clone())
    }

    /// The sender's connection, once its handshake is done (before the deadline).
    async fn connect(&self) -> anyhow::Result<Connection> {
        let index = self.index;
        let connecting = self
            .client
            .connect_with(
                self.client_config.clone(),
                self.server_addr,
                tls::SERVER_NAME,
            )
            .map_err(|e| anyhow!("flow {index}: connect: {e}"))?;
        timeout_at(self.deadline.into(), connecting)
            .await
            .map_err(|_| anyhow!("flow {index}: no handshake before the end of the run"))?
            .map_err(|e| anyhow!("flow {index}: handshake: {e}"))
    }

    /// Reads the sender every sample interval until the deadline or until told to stop.
    fn sample(&self, conn: Connection) -> (oneshot::Sender<()>, JoinHandle<Vec<Reading>>) {
        let (stop_tx, mut stop_rx) = oneshot::channel::<()>();
        let (delivered, epoch, deadline) = (self.delivered.clone(), self.epoch, self.deadline);
        let sampler = tokio::spawn(async move {
            let mut readings = Vec::new();
            let mut tick = tokio::time::interval(SAMPLE_INTERVAL);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = &mut stop_rx => break,
                }
                let s = conn.stats();
                readings.push(Reading {
                    at: epoch.elapsed(),
                    cwnd_bytes: s.path.cwnd,
                    ssthresh_bytes: None,
                    rtt_s: s.path.rtt.as_secs_f64(),
                    delivered_bytes: delivered.load(Ordering::Relaxed),
                });
                if Instant::now() >= deadline {
                    break;
                }
            }
            readings
        });
        (stop_tx, sampler)
    }

    /// Writes the flow's bytes (unbounded: until the deadline) and returns the stream, which
    /// stays open until the receiver has everything or the run ends.
    async fn send(&self, connection: &Connection) -> anyhow::Result<SendStream> {
        let mut stream = connection.open_uni().await?;
        let mut buf = vec![0u8; CHUNK];
        let mut offset = 0u64;
        loop {
            let n = match self.bytes {
                Some(total) => (total - offset).min(CHUNK as u64) as usize,
                None => CHUNK,
            };
            if n == 0 {
                stream.finish()?;
                break;
            }
            self.pattern.fill(offset, &mut buf[..n]);
            match timeout_at(self.deadline.into(), stream.write_all(&buf[..n])).await {
                Ok(r) => r?,
                Err(_) => break,
            }
            offset += n as u64;
        }
        Ok(stream)
    }
}

async fn receive(
    endpoint: Endpoint,
    mut check: Check,
    deadline: Instant,
) -> anyhow::Result<Received> {
    let mut out = Received::new();
    let Ok(Some(incoming)) = timeout_at(deadline.into(), endpoint.accept()).await else {
        return Ok(out);
    };
    let conn = match timeout_at(deadline.into(), incoming.accept()?).await {
        Ok(c) => c.context("receiver handshake")?,
        Err(_) => return Ok(out),
    };
    let Ok(stream) = timeout_at(deadline.into(), conn.accept_uni()).await else {
        out.packets = conn.stats().udp_rx.datagrams;
        return Ok(out);
    };
    let mut stream = stream.context("accepting the stream")?;
    loop {
        match timeout_at(deadline.into(), stream.read_chunk(usize::MAX, true)).await {
            Err(_) => break,
            Ok(Ok(Some(chunk))) => {
                if check.at(chunk.offset, &chunk.bytes, &mut out) {
                    break;
                }
            }
            Ok(Ok(None)) => break,
            // The receiver's endpoint closed the connection itself (a stock quinn receiver
            // gives up on a stream with more than 1024 holes): the flow's outcome.
            Ok(Err(ReadError::ConnectionLost(ConnectionError::TransportError(e)))) => {
                out.closed = Some(ConnectionError::TransportError(e).to_string());
                break;
            }
            Ok(Err(e)) => return Err(anyhow!("receiving: {e}")),
        }
    }
    out.packets = conn.stats().udp_rx.datagrams;
    Ok(out)
}
