//! Finds the ACK frames of a plaintext QUIC datagram (null packet protection, `null_crypto.rs`):
//! the long-header packets a datagram may coalesce are stepped over by their Length field, and the
//! short-header (1-RTT) packet's frames are walked to each ACK frame (RFC 9000 sections 12.2,
//! 12.4, 17.2, 17.3 and 19). Only application-space ACK frames are returned: those are the ones
//! whose ACK Delay quinn credits (RFC 9000 section 19.3, RFC 9002 section 5.3).

/// Length of the connection IDs the simulator's endpoints issue (quinn's default generator,
/// `HashedConnectionIdGenerator`: a 4-byte nonce and a 4-byte signature), so of a short header's
/// Destination Connection ID, which carries no length (RFC 9000 section 17.3.1). The simulator's
/// liar test finds every receiver datagram walked to its end, which another length would break.
pub const CID_LEN: usize = 8;

/// The AEAD tag after a packet's payload: 16 bytes for every TLS 1.3 cipher suite QUIC uses
/// (RFC 9001 section 5.3); null protection keeps the real key's tag length.
pub const TAG_LEN: usize = 16;

/// Where one ACK frame's ACK Delay field is, and what the frame says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckFrame {
    /// Offset of the ACK Delay varint in the datagram, and its encoded length (1, 2, 4 or 8).
    pub delay_at: usize,
    pub delay_len: usize,
    /// The field's value: microseconds shifted right by the receiver's `ack_delay_exponent`.
    pub delay: u64,
    /// The frame's ranges show a gap (ACK Range Count above zero): it reveals a loss.
    pub gap: bool,
}

/// A datagram whose frames could not be walked to the end, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unparsed {
    pub at: usize,
}

/// A variable-length integer at `at` (RFC 9000 section 16): its value and encoded length.
pub fn varint(buf: &[u8], at: usize) -> Option<(u64, usize)> {
    let first = *buf.get(at)?;
    let len = 1usize << (first >> 6);
    let bytes = buf.get(at..at + len)?;
    let mut v = u64::from(first & 0x3f);
    for &b in &bytes[1..] {
        v = (v << 8) | u64::from(b);
    }
    Some((v, len))
}

/// The largest value a varint of `len` bytes holds: 2^(8 len - 2) - 1.
pub fn varint_max(len: usize) -> u64 {
    (1u64 << (8 * len - 2)) - 1
}

/// The shortest varint length that holds `value` (at most [`crate::scenario::VARINT_MAX`]).
pub fn varint_len(value: u64) -> usize {
    [1, 2, 4, 8]
        .into_iter()
        .find(|&len| value <= varint_max(len))
        .unwrap_or(8)
}

/// Writes `value` as a varint of exactly `len` bytes at `at`; a longer encoding than the shortest
/// is valid (RFC 9000 section 16). `value` must fit ([`varint_max`]).
pub fn write_varint(buf: &mut [u8], at: usize, len: usize, value: u64) {
    debug_assert!(value <= varint_max(len));
    let prefix = u64::from(len.trailing_zeros() as u8) << (8 * len - 2);
    let bytes = (value | prefix).to_be_bytes();
    buf[at..at + len].copy_from_slice(&bytes[8 - len..]);
}

/// The application-space ACK frames of `datagram`.
pub fn ack_frames(datagram: &[u8]) -> Result<Vec<AckFrame>, Unparsed> {
    let mut at = 0;
    while at < datagram.len() {
        let first = datagram[at];
        if first & 0x80 == 0 {
            return short_header_acks(datagram, at);
        }
        at = after_long_header(datagram, at).ok_or(Unparsed { at })?;
    }
    Ok(Vec::new())
}

/// The end of the long-header packet at `at` (RFC 9000 section 17.2); `None` for one without a
/// Length field (Version Negotiation, Retry), which never coalesces with a 1-RTT packet.
fn after_long_header(buf: &[u8], at: usize) -> Option<usize> {
    let first = buf[at];
    let version = buf.get(at + 1..at + 5)?;
    if version == [0; 4] {
        return None;
    }
    let mut p = at + 5;
    let dcid = usize::from(*buf.get(p)?);
    p += 1 + dcid;
    let scid = usize::from(*buf.get(p)?);
    p += 1 + scid;
    match (first & 0x30) >> 4 {
        // Initial: a token before the Length.
        0 => {
            let (token, n) = varint(buf, p)?;
            p += n + usize::try_from(token).ok()?;
        }
        // Retry has no Length.
        3 => return None,
        _ => {}
    }
    let (length, n) = varint(buf, p)?;
    let end = p + n + usize::try_from(length).ok()?;
    (end <= buf.len()).then_some(end)
}

/// The ACK frames of the 1-RTT packet at `at`, which runs to the datagram's end.
fn short_header_acks(buf: &[u8], at: usize) -> Result<Vec<AckFrame>, Unparsed> {
    // Header protection is null, so the Packet Number Length bits are in the clear.
    let pn_len = usize::from(buf[at] & 0x03) + 1;
    let start = at + 1 + CID_LEN + pn_len;
    let end = buf.len().checked_sub(TAG_LEN).ok_or(Unparsed { at })?;
    let mut acks = Vec::new();
    let mut p = start;
    while p < end {
        let step = frame(&buf[..end], p, &mut acks).ok_or(Unparsed { at: p })?;
        p = step;
    }
    Ok(acks)
}

/// Steps over the frame at `p` (RFC 9000 section 19, with the ACK frequency extension's
/// ACK_FREQUENCY and IMMEDIATE_ACK, and RFC 9221's DATAGRAM), noting it in `acks` if it is an
/// ACK frame. Returns the offset after it, or `None` for a frame it does not know.
fn frame(buf: &[u8], p: usize, acks: &mut Vec<AckFrame>) -> Option<usize> {
    let (kind, n) = varint(buf, p)?;
    let mut q = p + n;
    let skip = |count: usize, q: &mut usize| -> Option<()> {
        for _ in 0..count {
            *q += varint(buf, *q)?.1;
        }
        Some(())
    };
    let bytes = |q: usize, len: u64| q.checked_add(usize::try_from(len).ok()?);
    match kind {
        // PADDING, PING, HANDSHAKE_DONE, IMMEDIATE_ACK.
        0x00 | 0x01 | 0x1e | 0x1f => {}
        0x02 | 0x03 => return ack(buf, q, kind == 0x03, acks),
        0x04 => skip(3, &mut q)?,
        0x05 | 0x11 | 0x15 => skip(2, &mut q)?,
        0x10 | 0x12 | 0x13 | 0x14 | 0x16 | 0x17 | 0x19 => skip(1, &mut q)?,
        // CRYPTO: offset, then length and data.
        0x06 => {
            skip(1, &mut q)?;
            let (len, n) = varint(buf, q)?;
            q = bytes(q + n, len)?;
        }
        // NEW_TOKEN, and a DATAGRAM with a length.
        0x07 | 0x31 => {
            let (len, n) = varint(buf, q)?;
            q = bytes(q + n, len)?;
        }
        // STREAM: id, offset if OFF, length if LEN (else to the packet's end).
        0x08..=0x0f => {
            skip(1, &mut q)?;
            if kind & 0x04 != 0 {
                skip(1, &mut q)?;
            }
            if kind & 0x02 == 0 {
                return Some(buf.len());
            }
            let (len, n) = varint(buf, q)?;
            q = bytes(q + n, len)?;
        }
        // NEW_CONNECTION_ID: sequence, retire prior to, a length byte, the id, a 16-byte token.
        0x18 => {
            skip(2, &mut q)?;
            let len = *buf.get(q)?;
            q += 1 + usize::from(len) + 16;
        }
        // PATH_CHALLENGE, PATH_RESPONSE.
        0x1a | 0x1b => q += 8,
        // CONNECTION_CLOSE: code, frame type (transport only), reason.
        0x1c | 0x1d => {
            skip(if kind == 0x1c { 2 } else { 1 }, &mut q)?;
            let (len, n) = varint(buf, q)?;
            q = bytes(q + n, len)?;
        }
        // A DATAGRAM without a length runs to the packet's end.
        0x30 => return Some(buf.len()),
        // ACK_FREQUENCY: sequence, threshold, requested max ACK delay, reordering threshold.
        0xaf => skip(4, &mut q)?,
        _ => return None,
    }
    (q <= buf.len()).then_some(q)
}

/// The ACK frame whose type ended at `q` (RFC 9000 section 19.3): notes its ACK Delay field.
fn ack(buf: &[u8], mut q: usize, ecn: bool, acks: &mut Vec<AckFrame>) -> Option<usize> {
    q += varint(buf, q)?.1; // Largest Acknowledged
    let (delay, delay_len) = varint(buf, q)?;
    let delay_at = q;
    q += delay_len;
    let (ranges, n) = varint(buf, q)?;
    q += n;
    q += varint(buf, q)?.1; // First ACK Range
    for _ in 0..ranges {
        q += varint(buf, q)?.1; // Gap
        q += varint(buf, q)?.1; // ACK Range Length
    }
    if ecn {
        for _ in 0..3 {
            q += varint(buf, q)?.1;
        }
    }
    acks.push(AckFrame {
        delay_at,
        delay_len,
        delay,
        gap: ranges > 0,
    });
    (q <= buf.len()).then_some(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_read_and_write_at_any_length() {
        // RFC 9000 appendix A.1's examples.
        let eight = [0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c];
        assert_eq!(varint(&eight, 0), Some((151_288_809_941_952_652, 8)));
        assert_eq!(varint(&[0x9d, 0x7f, 0x3e, 0x7d], 0), Some((494_878_333, 4)));
        assert_eq!(varint(&[0x7b, 0xbd], 0), Some((15_293, 2)));
        assert_eq!(varint(&[0x25], 0), Some((37, 1)));
        assert_eq!(varint(&[0x40, 0x25], 0), Some((37, 2)));
        assert_eq!(varint(&[0x7b], 0), None);
        for len in [1, 2, 4, 8] {
            let mut buf = [0u8; 8];
            write_varint(&mut buf, 0, len, varint_max(len));
            assert_eq!(varint(&buf, 0), Some((varint_max(len), len)));
            write_varint(&mut buf, 0, len, 5);
            assert_eq!(varint(&buf, 0), Some((5, len)));
        }
        assert_eq!(varint_max(1), 63);
        assert_eq!(varint_max(2), 16_383);
        assert_eq!(
            [0, 63, 64, 16_383, 16_384, 1 << 30].map(varint_len),
            [1, 1, 2, 2, 4, 8]
        );
    }

    /// A 1-RTT packet: short header with a 2-byte packet number, `frames`, a zero tag.
    fn short_packet(frames: &[u8]) -> Vec<u8> {
        let mut p = vec![0x41];
        p.extend_from_slice(&[7; CID_LEN]);
        p.extend_from_slice(&[0, 9]);
        p.extend_from_slice(frames);
        p.extend_from_slice(&[0; TAG_LEN]);
        p
    }

    #[test]
    fn finds_the_ack_frames_of_a_short_header_packet_after_other_frames() {
        let header = 1 + CID_LEN + 2;
        // PING, MAX_DATA 1000, ACK largest 100 delay 37 (2 bytes), one range (a gap), then
        // MAX_STREAM_DATA and a STREAM frame running to the end.
        let frames = [
            0x01, 0x10, 0x43, 0xe8, 0x02, 0x40, 0x64, 0x40, 0x25, 0x01, 0x03, 0x02, 0x04, 0x11,
            0x02, 0x05, 0x08, 0x02, 0xaa, 0xbb,
        ];
        let packet = short_packet(&frames);
        let acks = ack_frames(&packet).unwrap();
        assert_eq!(
            acks,
            [AckFrame {
                delay_at: header + 7,
                delay_len: 2,
                delay: 37,
                gap: true
            }]
        );
        // ACK_ECN without ranges, after PADDING.
        let frames = [0x00, 0x00, 0x03, 0x05, 0x00, 0x00, 0x04, 0x01, 0x02, 0x03];
        let acks = ack_frames(&short_packet(&frames)).unwrap();
        assert_eq!(acks.len(), 1);
        assert_eq!((acks[0].delay, acks[0].gap), (0, false));
        // A frame type it does not know.
        assert_eq!(
            ack_frames(&short_packet(&[0x21])),
            Err(Unparsed { at: header })
        );
    }

    #[test]
    fn steps_over_coalesced_long_header_packets() {
        // A Handshake packet (type 2) with an ACK inside, whose delay is not the 1-RTT one.
        let mut d = vec![0xe1, 0, 0, 0, 1, 8];
        d.extend_from_slice(&[1; 8]);
        d.push(8);
        d.extend_from_slice(&[2; 8]);
        let body = [0, 0x02, 0x01, 0x09, 0x00, 0x01];
        d.push(body.len() as u8);
        d.extend_from_slice(&body);
        let start = d.len();
        d.extend(short_packet(&[0x02, 0x05, 0x3f, 0x00, 0x00]));
        let acks = ack_frames(&d).unwrap();
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].delay, 63);
        assert_eq!(acks[0].delay_at, start + 1 + CID_LEN + 2 + 2);
    }
}
