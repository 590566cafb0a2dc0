//! noq-proto behind the simulator's seam: the stack of the `noq-*` peers
//! ([`crate::noq::NoqPeer`]). noq is a fork of quinn with the same sans-IO shape; it adds
//! multipath, so a connection's window, RTT and counters are read from its first path, the only
//! one a flow opens. The namespace runner drives the same adapter on real sockets
//! (`netns::noq`), so noq's glue is one piece of code in both runners.

use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use noq_proto::{
    ClientConfig, Connection, ConnectionHandle, DatagramEvent, Dir, Endpoint, EndpointConfig,
    Event, FourTuple, PathId, ReadError, ReadableError, ServerConfig, StreamEvent, StreamId,
    WriteError,
};
use quinn_proto::EcnCodepoint;

use super::{AppEvent, End, ReadStop, Tx};
use crate::report::record::SenderCounts;

/// A noq-proto endpoint and its connection.
pub struct NoqEnd {
    endpoint: Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
}

impl NoqEnd {
    /// An endpoint whose RNG is seeded with `seed` (the simulator's, for reproducible runs) or
    /// from the operating system (`None`: real time reproduces nothing); a receiver has a
    /// `server` configuration.
    pub fn new(seed: Option<[u8; 32]>, server: Option<Arc<ServerConfig>>) -> Self {
        let mut config = EndpointConfig::default();
        config.rng_seed(seed);
        Self {
            endpoint: Endpoint::new(Arc::new(config), server, false),
            conn: None,
        }
    }
}

/// The simulator's ECN codepoint as noq's: the two bits of the IP header.
fn to_noq(ecn: Option<EcnCodepoint>) -> Option<noq_proto::EcnCodepoint> {
    ecn.and_then(|e| noq_proto::EcnCodepoint::from_bits(e as u8))
}

/// noq's ECN codepoint as the simulator's.
fn from_noq(ecn: Option<noq_proto::EcnCodepoint>) -> Option<EcnCodepoint> {
    ecn.and_then(|e| EcnCodepoint::from_bits(e as u8))
}

impl End for NoqEnd {
    type Stream = StreamId;
    type Client = ClientConfig;

    fn connect(
        &mut self,
        t: Instant,
        config: ClientConfig,
        remote: SocketAddr,
    ) -> Result<(), String> {
        let c = self
            .endpoint
            .connect(t, config, remote, crate::tls::SERVER_NAME)
            .map_err(|e| e.to_string())?;
        self.conn = Some(c);
        Ok(())
    }

    fn has_connection(&self) -> bool {
        self.conn.is_some()
    }

    fn handle(
        &mut self,
        t: Instant,
        remote: SocketAddr,
        ecn: Option<EcnCodepoint>,
        data: BytesMut,
        scratch: &mut Vec<u8>,
        accept: bool,
    ) -> Result<Option<Tx>, String> {
        let path = FourTuple::from(remote);
        match self.endpoint.handle(t, path, to_noq(ecn), data, scratch) {
            None => {}
            Some(DatagramEvent::ConnectionEvent(ch, ev)) => {
                if let Some((own, conn)) = self.conn.as_mut() {
                    if *own == ch {
                        conn.handle_event(ev);
                    }
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                if accept && self.conn.is_none() {
                    scratch.clear();
                    let c = self
                        .endpoint
                        .accept(incoming, t, scratch, None)
                        .map_err(|e| e.cause.to_string())?;
                    self.conn = Some(c);
                } else {
                    self.endpoint.ignore(incoming);
                }
            }
            Some(DatagramEvent::Response(tx)) => {
                return Ok(Some(Tx {
                    size: tx.size,
                    ecn: from_noq(tx.ecn),
                }))
            }
        }
        Ok(None)
    }

    fn handle_timeout(&mut self, t: Instant) {
        if let Some((_, conn)) = self.conn.as_mut() {
            conn.handle_timeout(t);
        }
    }

    fn drain_endpoint_events(&mut self) -> usize {
        let Some((ch, conn)) = self.conn.as_mut() else {
            return 0;
        };
        let mut n = 0;
        while let Some(ev) = conn.poll_endpoint_events() {
            n += 1;
            if let Some(ev) = self.endpoint.handle_event(*ch, ev) {
                conn.handle_event(ev);
            }
        }
        n
    }

    fn poll(&mut self) -> Option<AppEvent> {
        let (_, conn) = self.conn.as_mut()?;
        loop {
            return Some(match conn.poll()? {
                Event::Connected => AppEvent::Connected,
                Event::Stream(StreamEvent::Opened { dir: Dir::Uni }) => AppEvent::UniOpened,
                Event::Stream(StreamEvent::Writable { .. }) => AppEvent::Writable,
                Event::ConnectionLost { reason } => AppEvent::Lost(reason.to_string()),
                _ => continue,
            });
        }
    }

    fn open_uni(&mut self) -> Option<StreamId> {
        self.conn.as_mut()?.1.streams().open(Dir::Uni)
    }

    fn accept_uni(&mut self) -> Option<StreamId> {
        self.conn.as_mut()?.1.streams().accept(Dir::Uni)
    }

    fn write_chunks(&mut self, id: StreamId, mut chunks: &mut [Bytes]) -> Result<usize, String> {
        let Some((_, conn)) = self.conn.as_mut() else {
            return Ok(0);
        };
        match conn.send_stream(id).write_chunks(&mut chunks) {
            Ok(bytes) => Ok(bytes),
            Err(WriteError::Blocked) => Ok(0),
            Err(e) => Err(e.to_string()),
        }
    }

    fn finish(&mut self, id: StreamId) -> Result<(), String> {
        match self.conn.as_mut() {
            Some((_, conn)) => conn.send_stream(id).finish().map_err(|e| e.to_string()),
            None => Err("no connection".into()),
        }
    }

    fn read<F>(&mut self, id: StreamId, mut chunk: F) -> Result<ReadStop, String>
    where
        F: FnMut(u64, &Bytes) -> ControlFlow<()>,
    {
        let Some((_, conn)) = self.conn.as_mut() else {
            return Ok(ReadStop::Blocked);
        };
        let mut stream = conn.recv_stream(id);
        let mut chunks = match stream.read(true) {
            Ok(c) => c,
            Err(ReadableError::ClosedStream) => return Ok(ReadStop::Closed),
            Err(e) => return Err(e.to_string()),
        };
        let stop = loop {
            match chunks.next(usize::MAX) {
                Ok(Some(c)) => {
                    if chunk(c.offset, &c.bytes).is_break() {
                        break Ok(ReadStop::Stopped);
                    }
                }
                Ok(None) => break Ok(ReadStop::Finished),
                Err(ReadError::Blocked) => break Ok(ReadStop::Blocked),
                Err(e) => break Err(e.to_string()),
            }
        };
        let _ = chunks.finalize();
        stop
    }

    fn poll_transmit(&mut self, t: Instant, scratch: &mut Vec<u8>) -> Option<Tx> {
        let tx = self
            .conn
            .as_mut()?
            .1
            .poll_transmit(t, NonZeroUsize::MIN, scratch)?;
        Some(Tx {
            size: tx.size,
            ecn: from_noq(tx.ecn),
        })
    }

    fn poll_timeout(&mut self) -> Option<Instant> {
        self.conn.as_mut()?.1.poll_timeout()
    }

    fn window_and_rtt(&self) -> Option<(u64, Duration)> {
        let (_, conn) = self.conn.as_ref()?;
        let window = conn.congestion_state(PathId::ZERO)?.window();
        Some((window, conn.rtt(PathId::ZERO)?))
    }

    fn counts(&mut self) -> Option<SenderCounts> {
        let (_, conn) = self.conn.as_mut()?;
        let path = conn.path_stats(PathId::ZERO)?;
        let stats = conn.stats();
        Some(SenderCounts {
            lost_packets: stats.lost_packets,
            congestion_events: path.congestion_events,
            flow_control_limited: stats.frame_tx.data_blocked > 0
                || stats.frame_tx.stream_data_blocked > 0,
        })
    }
}
