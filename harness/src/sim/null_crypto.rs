//! Null packet protection for the simulator's endpoints: the TLS 1.3 handshake runs for real,
//! but packets are sealed and their headers masked by keys that do no cryptography.
//!
//! Sealing and opening every packet with AES-GCM, and masking every header, is a large part of
//! what quinn-proto costs per packet, and in the simulator it protects nothing: its datagrams
//! never leave the process, and the bytes a flow delivers are checked against the sent ones
//! anyway. What the simulator must keep are the sizes and the decisions, and null protection keeps
//! both:
//!
//! * The handshake is rustls's own, with the same certificate and configuration as with real
//!   protection, so the CRYPTO frames, the transport parameters and every handshake packet have
//!   their real sizes; only the keys it hands out are wrapped.
//! * A null packet key has the real key's tag length, and the header key the real one's sample
//!   size, so every packet has its real size and padding. The confidentiality and integrity
//!   limits are the real key's too, so key updates happen at the same packets.
//! * The "tag" a null key writes is not zeros but a fingerprint of the real key it stands for (the
//!   real tag of one fixed empty packet). Opening checks it, so a packet opened with the wrong keys
//!   (a packet space's or key phase's other keys) fails as AEAD authentication would have, and
//!   quinn's key-update and authentication-failure paths take the same turns.
//!
//! Retry integrity tags, exported keying material and everything else of the session go to the
//! real implementation. The netns runner never uses this module: its packets cross real sockets
//! and always carry real protection. `--real-crypto` gives the simulator the real ciphers too,
//! which the `sim_crypto` test uses to show both give byte-identical results.

use std::any::Any;
use std::sync::Arc;

use bytes::BytesMut;
use quinn_proto::crypto::{
    self, CryptoError, ExportKeyingMaterialError, HeaderKey, KeyPair, Keys, PacketKey,
    UnsupportedVersion,
};
use quinn_proto::transport_parameters::TransportParameters;
use quinn_proto::{ClientConfig, ConnectError, ConnectionId, ServerConfig, Side, TransportError};

use crate::tls::{Identity, TlsError};

/// How the simulator's endpoints protect their packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PacketProtection {
    /// A real handshake, then keys that do no cryptography (this module). Same results, faster.
    #[default]
    Null,
    /// rustls's AES-GCM packet protection and header protection, as on a real network.
    Real,
}

/// Stands in for a real packet key: seals by writing the key's fingerprint as the tag.
struct NullPacketKey {
    tag: Box<[u8]>,
    confidentiality_limit: u64,
    integrity_limit: u64,
}

/// The header bytes the fingerprint is computed over; any fixed value does.
const PROBE_HEADER: [u8; 1] = [0x40];

impl NullPacketKey {
    fn standing_in_for(real: Box<dyn PacketKey>) -> Box<dyn PacketKey> {
        // Both ends derive the same key from the same secret, so the sender's local key and the
        // receiver's remote key yield the same tag for the same empty packet.
        let mut probe = PROBE_HEADER.to_vec();
        probe.resize(PROBE_HEADER.len() + real.tag_len(), 0);
        real.encrypt(0, &mut probe, PROBE_HEADER.len());
        Box::new(Self {
            tag: probe[PROBE_HEADER.len()..].into(),
            confidentiality_limit: real.confidentiality_limit(),
            integrity_limit: real.integrity_limit(),
        })
    }
}

impl PacketKey for NullPacketKey {
    fn encrypt(&self, _packet: u64, buf: &mut [u8], _header_len: usize) {
        // quinn leaves room for the tag at the end of the buffer.
        let at = buf.len() - self.tag.len();
        buf[at..].copy_from_slice(&self.tag);
    }

    fn decrypt(
        &self,
        _packet: u64,
        _header: &[u8],
        payload: &mut BytesMut,
    ) -> Result<(), CryptoError> {
        let at = payload
            .len()
            .checked_sub(self.tag.len())
            .ok_or(CryptoError)?;
        if payload[at..] != *self.tag {
            return Err(CryptoError);
        }
        payload.truncate(at);
        Ok(())
    }

    fn tag_len(&self) -> usize {
        self.tag.len()
    }

    fn confidentiality_limit(&self) -> u64 {
        self.confidentiality_limit
    }

    fn integrity_limit(&self) -> u64 {
        self.integrity_limit
    }
}

/// Stands in for a real header protection key: leaves headers as they are.
struct NullHeaderKey {
    sample_size: usize,
}

impl NullHeaderKey {
    fn standing_in_for(real: Box<dyn HeaderKey>) -> Box<dyn HeaderKey> {
        Box::new(Self {
            sample_size: real.sample_size(),
        })
    }
}

impl HeaderKey for NullHeaderKey {
    fn decrypt(&self, _pn_offset: usize, _packet: &mut [u8]) {}

    fn encrypt(&self, _pn_offset: usize, _packet: &mut [u8]) {}

    fn sample_size(&self) -> usize {
        self.sample_size
    }
}

fn null_pair(pair: KeyPair<Box<dyn PacketKey>>) -> KeyPair<Box<dyn PacketKey>> {
    KeyPair {
        local: NullPacketKey::standing_in_for(pair.local),
        remote: NullPacketKey::standing_in_for(pair.remote),
    }
}

fn null_keys(keys: Keys) -> Keys {
    Keys {
        header: KeyPair {
            local: NullHeaderKey::standing_in_for(keys.header.local),
            remote: NullHeaderKey::standing_in_for(keys.header.remote),
        },
        packet: null_pair(keys.packet),
    }
}

/// A real TLS session whose keys are swapped for null ones on the way out.
struct NullSession(Box<dyn crypto::Session>);

impl crypto::Session for NullSession {
    fn initial_keys(&self, dst_cid: &ConnectionId, side: Side) -> Keys {
        null_keys(self.0.initial_keys(dst_cid, side))
    }

    fn handshake_data(&self) -> Option<Box<dyn Any>> {
        self.0.handshake_data()
    }

    fn peer_identity(&self) -> Option<Box<dyn Any>> {
        self.0.peer_identity()
    }

    fn early_crypto(&self) -> Option<(Box<dyn HeaderKey>, Box<dyn PacketKey>)> {
        self.0.early_crypto().map(|(header, packet)| {
            (
                NullHeaderKey::standing_in_for(header),
                NullPacketKey::standing_in_for(packet),
            )
        })
    }

    fn early_data_accepted(&self) -> Option<bool> {
        self.0.early_data_accepted()
    }

    fn is_handshaking(&self) -> bool {
        self.0.is_handshaking()
    }

    fn read_handshake(&mut self, buf: &[u8]) -> Result<bool, TransportError> {
        self.0.read_handshake(buf)
    }

    fn transport_parameters(&self) -> Result<Option<TransportParameters>, TransportError> {
        self.0.transport_parameters()
    }

    fn write_handshake(&mut self, buf: &mut Vec<u8>) -> Option<Keys> {
        self.0.write_handshake(buf).map(null_keys)
    }

    fn next_1rtt_keys(&mut self) -> Option<KeyPair<Box<dyn PacketKey>>> {
        self.0.next_1rtt_keys().map(null_pair)
    }

    fn is_valid_retry(&self, orig_dst_cid: &ConnectionId, header: &[u8], payload: &[u8]) -> bool {
        self.0.is_valid_retry(orig_dst_cid, header, payload)
    }

    fn export_keying_material(
        &self,
        output: &mut [u8],
        label: &[u8],
        context: &[u8],
    ) -> Result<(), ExportKeyingMaterialError> {
        self.0.export_keying_material(output, label, context)
    }
}

/// A client's TLS configuration whose sessions hand out null keys.
struct NullClientConfig(Arc<dyn crypto::ClientConfig>);

impl crypto::ClientConfig for NullClientConfig {
    fn start_session(
        self: Arc<Self>,
        version: u32,
        server_name: &str,
        params: &TransportParameters,
    ) -> Result<Box<dyn crypto::Session>, ConnectError> {
        let session = self.0.clone().start_session(version, server_name, params)?;
        Ok(Box::new(NullSession(session)))
    }
}

/// A server's TLS configuration whose initial keys and sessions are null.
struct NullServerConfig(Arc<dyn crypto::ServerConfig>);

impl crypto::ServerConfig for NullServerConfig {
    fn initial_keys(
        &self,
        version: u32,
        dst_cid: &ConnectionId,
    ) -> Result<Keys, UnsupportedVersion> {
        self.0.initial_keys(version, dst_cid).map(null_keys)
    }

    fn retry_tag(&self, version: u32, orig_dst_cid: &ConnectionId, packet: &[u8]) -> [u8; 16] {
        self.0.retry_tag(version, orig_dst_cid, packet)
    }

    fn start_session(
        self: Arc<Self>,
        version: u32,
        params: &TransportParameters,
    ) -> Box<dyn crypto::Session> {
        Box::new(NullSession(self.0.clone().start_session(version, params)))
    }
}

/// The server and client configurations of a run's endpoints, with `protection`.
pub fn configs(
    identity: &Identity,
    protection: PacketProtection,
) -> Result<(ServerConfig, ClientConfig), TlsError> {
    let mut server = identity.server_config()?;
    match protection {
        PacketProtection::Real => Ok((server, identity.client_config()?)),
        PacketProtection::Null => {
            server.crypto = Arc::new(NullServerConfig(server.crypto));
            let client = NullClientConfig(Arc::new(identity.client_crypto()?));
            Ok((server, ClientConfig::new(Arc::new(client))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server's null initial keys for a connection whose client picked `cid`.
    fn server_keys(identity: &Identity, cid: u8) -> Keys {
        let real = identity.server_config().unwrap().crypto;
        let null = NullServerConfig(real);
        crypto::ServerConfig::initial_keys(&null, 1, &ConnectionId::new(&[cid; 8])).unwrap()
    }

    #[test]
    fn a_sealed_packet_keeps_its_size_and_opens_with_the_same_secret_only() {
        let identity = Identity::generate().unwrap();
        let (a, b, other) = (
            server_keys(&identity, 7),
            server_keys(&identity, 7),
            server_keys(&identity, 9),
        );
        assert_eq!(a.packet.local.tag_len(), 16);
        assert_eq!(a.header.local.sample_size(), 16);
        let header = [0xc3u8; 5];
        let mut buf = header.to_vec();
        buf.extend_from_slice(b"payload");
        buf.resize(buf.len() + 16, 0);
        let sealed = buf.len();
        a.packet.local.encrypt(3, &mut buf, header.len());
        a.header.local.encrypt(1, &mut buf);
        assert_eq!(buf.len(), sealed);
        assert_eq!(&buf[..header.len()], &header);

        let open = |key: &dyn PacketKey| {
            let mut payload = BytesMut::from(&buf[header.len()..]);
            key.decrypt(3, &header, &mut payload).map(|()| payload)
        };
        assert_eq!(&open(&*b.packet.local).unwrap()[..], b"payload");
        // The client's key, and another connection's.
        assert!(open(&*a.packet.remote).is_err());
        assert!(open(&*other.packet.local).is_err());
    }
}
