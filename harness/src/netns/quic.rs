//! QUIC flows on real sockets: per flow a quinn client (the sender, one unidirectional stream) in
//! the sender's namespace and a server (the receiver, which checks every byte) in the receiver's,
//! on the calling tokio runtime. Each side has its own endpoint; the client connects inside a
//! `capture::SPAN` span, which quinn's connection task inherits, so the controller's events name the
//! flow.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use quinn::{Endpoint, EndpointConfig};
use tokio::time::timeout_at;
use tracing::Instrument;

use super::flow::{FlowResult, SAMPLE_INTERVAL};
use crate::payload::Pattern;
use crate::report::Sample;
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
    pub server_socket: UdpSocket,
    pub server_addr: SocketAddr,
    pub client_config: quinn::ClientConfig,
    pub server_config: quinn::ServerConfig,
}

struct Received {
    verified: bool,
    completed_at: Option<Instant>,
    packets: u64,
}

/// Runs the flow until it completes or `deadline`.
pub async fn run(flow: QuicFlow, epoch: Instant, deadline: Instant) -> anyhow::Result<FlowResult> {
    let index = flow.index;
    let runtime = Arc::new(quinn::TokioRuntime);
    let server = Endpoint::new(
        EndpointConfig::default(),
        Some(flow.server_config),
        flow.server_socket,
        runtime.clone(),
    )
    .context("receiver endpoint")?;
    let client = Endpoint::new(EndpointConfig::default(), None, flow.client_socket, runtime)
        .context("sender endpoint")?;
    let pattern = Pattern::new(flow.seed, index);
    let delivered = Arc::new(AtomicU64::new(0));

    let receiver = tokio::spawn(
        receive(
            server.clone(),
            pattern,
            flow.bytes,
            delivered.clone(),
            deadline,
        )
        .instrument(tracing::info_span!(
            crate::capture::SPAN,
            index = index as u64,
            role = "receiver"
        )),
    );
    let start_at = epoch + flow.start;
    tokio::time::sleep_until(start_at.into()).await;

    let sender_span =
        tracing::info_span!(crate::capture::SPAN, index = index as u64, role = "sender");
    let connection = async {
        let connecting = client
            .connect_with(flow.client_config, flow.server_addr, tls::SERVER_NAME)
            .map_err(|e| anyhow!("flow {index}: connect: {e}"))?;
        timeout_at(deadline.into(), connecting)
            .await
            .map_err(|_| anyhow!("flow {index}: no handshake before the end of the run"))?
            .map_err(|e| anyhow!("flow {index}: handshake: {e}"))
    }
    .instrument(sender_span.clone())
    .await?;

    // Periodic samples until the receiver is done.
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    let sampler = {
        let conn = connection.clone();
        let delivered = delivered.clone();
        tokio::spawn(async move {
            let mut samples = Vec::new();
            let mut tick = tokio::time::interval(SAMPLE_INTERVAL);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = &mut stop_rx => break,
                }
                let s = conn.stats();
                samples.push(Sample {
                    t_s: epoch.elapsed().as_secs_f64(),
                    cwnd_bytes: s.path.cwnd,
                    ssthresh_bytes: None,
                    rtt_s: s.path.rtt.as_secs_f64(),
                    delivered_bytes: delivered.load(Ordering::Relaxed),
                });
                if Instant::now() >= deadline {
                    break;
                }
            }
            samples
        })
    };

    let send = async {
        let mut stream = connection.open_uni().await?;
        let mut buf = vec![0u8; CHUNK];
        let mut offset = 0u64;
        loop {
            let n = match flow.bytes {
                Some(total) => (total - offset).min(CHUNK as u64) as usize,
                None => CHUNK,
            };
            if n == 0 {
                stream.finish()?;
                break;
            }
            pattern.fill(offset, &mut buf[..n]);
            match timeout_at(deadline.into(), stream.write_all(&buf[..n])).await {
                Ok(r) => r?,
                Err(_) => break,
            }
            offset += n as u64;
        }
        // Keep the stream open until the receiver has everything or the run ends.
        Ok::<_, anyhow::Error>(stream)
    }
    .instrument(sender_span)
    .await
    .with_context(|| format!("flow {index}: sending"));

    let received = receiver
        .await
        .map_err(|e| anyhow!("flow {index}: receiver task: {e}"))?;
    let _ = stop_tx.send(());
    let samples = sampler.await.unwrap_or_default();
    let stats = connection.stats();
    connection.close(0u32.into(), b"done");
    let _stream = send?;
    let received = received?;
    let end = received
        .completed_at
        .unwrap_or_else(|| deadline.min(Instant::now()));
    server.close(0u32.into(), b"done");
    client.close(0u32.into(), b"done");
    Ok(FlowResult {
        index,
        controller: flow.controller,
        start: flow.start,
        end: end.saturating_duration_since(epoch),
        completed: received.completed_at.is_some(),
        delivered: delivered.load(Ordering::Relaxed),
        packets_delivered: received.packets,
        lost_packets: stats.path.lost_packets,
        congestion_events: stats.path.congestion_events,
        verified: received.verified,
        flow_control_limited: stats.frame_tx.data_blocked > 0
            || stats.frame_tx.stream_data_blocked > 0,
        min_rtt: Some(stats.path.min_rtt).filter(|d| !d.is_zero()),
        samples,
    })
}

async fn receive(
    endpoint: Endpoint,
    pattern: Pattern,
    bytes: Option<u64>,
    delivered: Arc<AtomicU64>,
    deadline: Instant,
) -> anyhow::Result<Received> {
    let mut out = Received {
        verified: true,
        completed_at: None,
        packets: 0,
    };
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
    let mut offset = 0u64;
    loop {
        match timeout_at(deadline.into(), stream.read_chunk(usize::MAX, true)).await {
            Err(_) => break,
            Ok(Ok(Some(chunk))) => {
                if chunk.offset != offset || !pattern.check(offset, &chunk.bytes) {
                    out.verified = false;
                    break;
                }
                offset += chunk.bytes.len() as u64;
                delivered.store(offset, Ordering::Relaxed);
                if bytes == Some(offset) {
                    out.completed_at = Some(Instant::now());
                    break;
                }
            }
            Ok(Ok(None)) => break,
            Ok(Err(e)) => return Err(anyhow!("receiving: {e}")),
        }
    }
    out.packets = conn.stats().udp_rx.datagrams;
    Ok(out)
}
