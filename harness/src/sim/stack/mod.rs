//! The seam between the simulator and a sans-IO QUIC stack: what a flow's code asks of one
//! endpoint and its (at most one) connection. quinn-proto ([`quinn::QuinnEnd`]) and noq-proto
//! ([`noq::NoqEnd`]) have the same sans-IO shape (`handle`, `poll_transmit`, `handle_timeout`,
//! `poll_timeout`, streams), so each implementation only translates calls and types; the links,
//! events, timers, byte checks and recording are the flow's, shared by both.
//!
//! A flow is generic over its stack, so a quinn flow's calls are static, as before the seam.

pub mod noq;
pub mod quinn;

use std::net::SocketAddr;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use quinn_proto::EcnCodepoint;

use crate::report::record::SenderCounts;

/// A datagram the stack wrote into the scratch buffer: its length and ECN codepoint.
pub struct Tx {
    pub size: usize,
    pub ecn: Option<EcnCodepoint>,
}

/// What a connection tells the application, in the terms the flow needs.
pub enum AppEvent {
    /// The handshake completed.
    Connected,
    /// The peer opened a unidirectional stream.
    UniOpened,
    /// A stream that was blocked may take more bytes.
    Writable,
    /// The connection is gone, for this reason.
    Lost(String),
}

/// How a read of the receiver's stream stopped.
pub enum ReadStop {
    /// Everything that arrived in order was read.
    Blocked,
    /// The stream's end was read.
    Finished,
    /// The stream is closed already: nothing to read.
    Closed,
    /// The callback asked to stop.
    Stopped,
}

/// One QUIC endpoint with at most one connection, driven sans-IO.
pub trait End {
    /// A stream's id.
    type Stream: Copy;
    /// What a client connects with.
    type Client: Clone;

    /// Opens the connection to `remote` at `t`.
    fn connect(
        &mut self,
        t: Instant,
        config: Self::Client,
        remote: SocketAddr,
    ) -> Result<(), String>;

    /// Whether the endpoint has its connection.
    fn has_connection(&self) -> bool;

    /// A datagram from `remote` arrived at `t`. A new connection is accepted if `accept` and
    /// there is none yet, and ignored otherwise. Returns a datagram the endpoint answers with
    /// itself (written into `scratch`), if any.
    fn handle(
        &mut self,
        t: Instant,
        remote: SocketAddr,
        ecn: Option<EcnCodepoint>,
        data: BytesMut,
        scratch: &mut Vec<u8>,
        accept: bool,
    ) -> Result<Option<Tx>, String>;

    /// The connection's timer fired at `t`.
    fn handle_timeout(&mut self, t: Instant);

    /// Passes the connection's endpoint events to the endpoint and its answers back; returns how
    /// many there were.
    fn drain_endpoint_events(&mut self) -> usize;

    /// The connection's next event for the application.
    fn poll(&mut self) -> Option<AppEvent>;

    /// Opens the sender's unidirectional stream.
    fn open_uni(&mut self) -> Option<Self::Stream>;

    /// Accepts the receiver's unidirectional stream.
    fn accept_uni(&mut self) -> Option<Self::Stream>;

    /// Hands `chunks` to stream `id` without copying them; returns the bytes taken, 0 when the
    /// stream is blocked.
    fn write_chunks(&mut self, id: Self::Stream, chunks: &mut [Bytes]) -> Result<usize, String>;

    /// Finishes stream `id`.
    fn finish(&mut self, id: Self::Stream) -> Result<(), String>;

    /// Reads stream `id` in order, handing each chunk (offset, bytes) to `chunk` until it breaks.
    fn read<F>(&mut self, id: Self::Stream, chunk: F) -> Result<ReadStop, String>
    where
        F: FnMut(u64, &Bytes) -> ControlFlow<()>;

    /// The next datagram to send at `t`, written into `scratch`.
    fn poll_transmit(&mut self, t: Instant, scratch: &mut Vec<u8>) -> Option<Tx>;

    /// When the connection's timer fires next.
    fn poll_timeout(&mut self) -> Option<Instant>;

    /// The congestion window and smoothed RTT of the connection.
    fn window_and_rtt(&self) -> Option<(u64, Duration)>;

    /// The sender's counters, from the stack's statistics.
    fn counts(&mut self) -> Option<SenderCounts>;
}
