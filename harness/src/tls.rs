//! TLS 1.3 identities for a run, in either runner: one self-signed certificate, trusted by every
//! client and by nothing else. Ed25519 keeps signatures (and so handshake packet sizes) the same
//! length in every run, which determinism needs; the serial number is fixed for the same reason.

use std::sync::Arc;

use quinn_proto::{ClientConfig, ServerConfig};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A certificate or TLS configuration could not be built.
#[derive(Debug, thiserror::Error)]
#[error("TLS set-up: {0}")]
pub struct TlsError(String);

/// The name every client connects to and the certificate names.
pub const SERVER_NAME: &str = "discern.sim";

pub struct Identity {
    cert: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

impl Identity {
    pub fn generate() -> Result<Self, TlsError> {
        let tls = |e: rcgen::Error| TlsError(e.to_string());
        let key_pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ED25519).map_err(tls)?;
        let mut params =
            rcgen::CertificateParams::new(vec![SERVER_NAME.to_string()]).map_err(tls)?;
        params.serial_number = Some(rcgen::SerialNumber::from(1u64));
        let cert = params.self_signed(&key_pair).map_err(tls)?;
        Ok(Self {
            cert: cert.der().clone(),
            key: PrivatePkcs8KeyDer::from(key_pair.serialize_der()),
        })
    }

    pub fn server_config(&self) -> Result<ServerConfig, TlsError> {
        let mut config = ServerConfig::with_single_cert(
            vec![self.cert.clone()],
            PrivateKeyDer::Pkcs8(self.key.clone_key()),
        )
        .map_err(|e| TlsError(e.to_string()))?;
        // Address validation tokens would only add handshake noise.
        config.validation_token.sent(0);
        Ok(config)
    }

    pub fn client_config(&self) -> Result<ClientConfig, TlsError> {
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(self.cert.clone())
            .map_err(|e| TlsError(e.to_string()))?;
        ClientConfig::with_root_certificates(Arc::new(roots)).map_err(|e| TlsError(e.to_string()))
    }
}
