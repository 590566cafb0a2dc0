//! A receiver that lies about its ACK Delay (`receiver_lies`, `scenario/lies.rs`): the simulator
//! rewrites the field in the receiver's application-space ACK frames on their way back, and keeps
//! the truth beside what was reported.
//!
//! This is the optimistic-ACK family (Savage et al., "TCP congestion control with a misbehaving
//! receiver", CCR 1999; RFC 9000 section 21.4) aimed at the ACK Delay (RFC 9000 section 19.3),
//! which every delay-based loss classifier of the crate subtracts before it reads the queue.
//!
//! By default (`length = "keep"`) the rewrite keeps the field's encoded length (RFC 9000 section
//! 16 allows any length that holds the value), so every datagram keeps its size and the links
//! serialise it as before: an honest run and a lying one differ only in what the sender reads. A
//! lie the field's length cannot hold is written as that length's largest value, and counted.
//! quinn encodes a frame sent at once with a one-byte field (at most 504 us), so that caps most
//! lies; `length = "grow"` writes the field at the length the lie needs, as a receiver encoding
//! it would, and the 1-RTT packet, the last of its datagram (it has no Length field, RFC 9000
//! section 17.3.1), grows by the extra bytes.

use std::time::Duration;

use bytes::BytesMut;

use super::frames::{ack_frames, varint_len, varint_max, write_varint};
use crate::report::LiedAcks;
use crate::scenario::{
    LieLength, LieWhen, LiedDelay, ReceiverLies, ACK_DELAY_EXPONENT, VARINT_MAX,
};

/// A field to write at a new length: its offset, its old length, its new one, its value.
type Widened = (usize, usize, usize, u64);

/// One flow's lying receiver and its record.
#[derive(Debug, Clone)]
pub struct Liar {
    lies: ReceiverLies,
    /// Where quinn stops crediting ACK Delay: the receiver's `max_ack_delay` (RFC 9002 section
    /// 5.3), in microseconds. The oracle liar reports no more, as more buys nothing.
    cap_us: u64,
    frames: u64,
    rewritten: u64,
    capped: u64,
    grown_bytes: u64,
    unparsed: u64,
    true_sum_us: u128,
    reported_sum_us: u128,
    lie_max_us: u64,
}

impl Liar {
    /// A liar for a receiver whose ACK Delay the sender credits up to `max_ack_delay`.
    pub fn new(lies: ReceiverLies, max_ack_delay: Duration) -> Self {
        Self {
            lies,
            cap_us: u64::try_from(max_ack_delay.as_micros()).unwrap_or(u64::MAX),
            frames: 0,
            rewritten: 0,
            capped: 0,
            grown_bytes: 0,
            unparsed: 0,
            true_sum_us: 0,
            reported_sum_us: 0,
            lie_max_us: 0,
        }
    }

    /// Rewrites the ACK frames of the receiver's `datagram`, whose largest acknowledged packet
    /// met `queued_us` of queueing on its way (the simulator's ground truth).
    pub fn rewrite(&mut self, datagram: &mut BytesMut, queued_us: u64) {
        let acks = match ack_frames(datagram) {
            Ok(acks) => acks,
            Err(_) => {
                self.unparsed += 1;
                return;
            }
        };
        let mut widened: Vec<Widened> = Vec::new();
        for ack in acks {
            self.frames += 1;
            if self.lies.when == LieWhen::OnGap && !ack.gap {
                continue;
            }
            let true_us = ack.delay << ACK_DELAY_EXPONENT;
            let wanted = (self.lie_us(true_us, queued_us) >> ACK_DELAY_EXPONENT).min(VARINT_MAX);
            let (field, len) = match self.lies.length {
                LieLength::Keep => {
                    let room = varint_max(ack.delay_len);
                    self.capped += u64::from(wanted > room);
                    (wanted.min(room), ack.delay_len)
                }
                LieLength::Grow => (wanted, ack.delay_len.max(varint_len(wanted))),
            };
            if len == ack.delay_len {
                write_varint(datagram, ack.delay_at, len, field);
            } else {
                widened.push((ack.delay_at, ack.delay_len, len, field));
            }
            let reported_us = field << ACK_DELAY_EXPONENT;
            self.rewritten += 1;
            self.true_sum_us += u128::from(true_us);
            self.reported_sum_us += u128::from(reported_us);
            self.lie_max_us = self.lie_max_us.max(reported_us.saturating_sub(true_us));
        }
        if !widened.is_empty() {
            *datagram = self.widen(datagram, &widened);
        }
    }

    /// `datagram` with each of `fields` (in order of offset) written at its new length.
    fn widen(&mut self, datagram: &[u8], fields: &[Widened]) -> BytesMut {
        let extra: usize = fields.iter().map(|&(_, old, new, _)| new - old).sum();
        self.grown_bytes += extra as u64;
        let mut out = BytesMut::with_capacity(datagram.len() + extra);
        let mut from = 0;
        for &(at, old, new, value) in fields {
            out.extend_from_slice(&datagram[from..at]);
            let mut field = [0u8; 8];
            write_varint(&mut field, 0, new, value);
            out.extend_from_slice(&field[..new]);
            from = at + old;
        }
        out.extend_from_slice(&datagram[from..]);
        out
    }

    /// The ACK Delay to report for a frame whose true one is `true_us`.
    fn lie_us(&self, true_us: u64, queued_us: u64) -> u64 {
        match self.lies.ack_delay {
            LiedDelay::Constant(d) => u64::try_from(d.as_micros()).unwrap_or(u64::MAX),
            // Never below the truth, where the truth itself exceeds the cap.
            LiedDelay::Queue => (true_us + queued_us).min(self.cap_us).max(true_us),
        }
    }

    /// The record of flow `flow`'s liar for `summary.json`.
    pub fn summary(&self, flow: usize) -> LiedAcks {
        let n = self.rewritten.max(1) as f64;
        let (true_sum, reported_sum) = (self.true_sum_us as f64, self.reported_sum_us as f64);
        LiedAcks {
            flow,
            lie: self.lies.to_string(),
            frames: self.frames,
            rewritten: self.rewritten,
            capped: self.capped,
            grown_bytes: self.grown_bytes,
            true_delay_mean_us: true_sum / n,
            reported_delay_mean_us: reported_sum / n,
            lie_mean_us: (reported_sum - true_sum) / n,
            lie_max_us: self.lie_max_us,
            unparsed: self.unparsed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::frames::{varint, CID_LEN, TAG_LEN};
    use super::*;

    /// A 1-RTT datagram with one ACK frame whose delay field is `delay` (`len` bytes) and which
    /// has `ranges` ranges after the first.
    fn datagram(delay: u64, len: usize, ranges: u8) -> (BytesMut, usize) {
        let mut d = vec![0x40];
        d.extend_from_slice(&[3; CID_LEN]);
        // A one-byte packet number, then ACK, Largest Acknowledged 32.
        d.extend_from_slice(&[0x01, 0x02, 0x20]);
        let at = d.len();
        d.resize(at + len, 0);
        write_varint(&mut d, at, len, delay);
        d.extend_from_slice(&[ranges, 0x02]);
        for _ in 0..ranges {
            d.extend_from_slice(&[0x01, 0x01]);
        }
        d.extend_from_slice(&[0; TAG_LEN]);
        (BytesMut::from(&d[..]), at)
    }

    fn liar_of(ack_delay: LiedDelay, when: LieWhen, length: LieLength) -> Liar {
        let lies = ReceiverLies {
            ack_delay,
            when,
            length,
            line: 1,
        };
        Liar::new(lies, Duration::from_millis(25))
    }

    fn liar(ack_delay: LiedDelay, when: LieWhen) -> Liar {
        liar_of(ack_delay, when, LieLength::Keep)
    }

    #[test]
    fn a_lie_that_grows_widens_its_field_and_keeps_the_rest_of_the_packet() {
        let lie = LiedDelay::Constant(Duration::from_millis(25));
        let mut l = liar_of(lie, LieWhen::Always, LieLength::Grow);
        let (mut one, at) = datagram(0, 1, 1);
        let before = one.clone();
        l.rewrite(&mut one, 0);
        assert_eq!(one.len(), before.len() + 1);
        assert_eq!(varint(&one, at), Some((3125, 2)));
        assert_eq!(one[..at], before[..at]);
        assert_eq!(one[at + 2..], before[at + 1..]);
        // The frame still reads whole, with its gap, up to the tag.
        let acks = ack_frames(&one).unwrap();
        assert_eq!((acks.len(), acks[0].delay, acks[0].gap), (1, 3125, true));
        // A field long enough already is written in place.
        let (mut two, at) = datagram(3, 2, 0);
        let size = two.len();
        l.rewrite(&mut two, 0);
        assert_eq!((two.len(), varint(&two, at)), (size, Some((3125, 2))));
        let s = l.summary(0);
        assert_eq!((s.rewritten, s.capped, s.grown_bytes), (2, 0, 1));
    }

    #[test]
    fn a_constant_lie_keeps_the_length_and_is_capped_where_it_does_not_fit() {
        let mut l = liar(
            LiedDelay::Constant(Duration::from_millis(25)),
            LieWhen::Always,
        );
        // 25 ms is 3125 units of 8 us: two bytes hold it, one does not.
        let (mut two, at) = datagram(10, 2, 0);
        let size = two.len();
        l.rewrite(&mut two, 0);
        assert_eq!(two.len(), size);
        assert_eq!(varint(&two, at), Some((3125, 2)));
        let (mut one, at) = datagram(0, 1, 0);
        l.rewrite(&mut one, 0);
        assert_eq!(varint(&one, at), Some((63, 1)));
        let s = l.summary(4);
        assert_eq!((s.flow, s.frames, s.rewritten, s.capped), (4, 2, 2, 1));
        assert_eq!(s.lie_max_us, 25_000 - 80);
        assert_eq!(s.true_delay_mean_us, 40.0);
        assert_eq!(s.reported_delay_mean_us, (25_000.0 + 504.0) / 2.0);
    }

    #[test]
    fn the_oracle_adds_the_queue_up_to_max_ack_delay_and_on_gap_spares_gapless_frames() {
        let mut l = liar(LiedDelay::Queue, LieWhen::OnGap);
        let (mut gapless, at) = datagram(100, 2, 0);
        let before = gapless.clone();
        l.rewrite(&mut gapless, 9_000);
        assert_eq!(gapless, before);
        let (mut gap, at_gap) = datagram(100, 2, 1);
        l.rewrite(&mut gap, 9_000);
        assert_eq!(varint(&gap, at_gap), Some(((800 + 9_000) / 8, 2)));
        // A queue beyond the cap: 25 ms is all quinn credits.
        let (mut deep, _) = datagram(100, 2, 2);
        l.rewrite(&mut deep, 60_000);
        assert_eq!(varint(&deep, at_gap), Some((3125, 2)));
        let s = l.summary(0);
        assert_eq!((s.frames, s.rewritten, s.capped), (3, 2, 0));
        assert_eq!(s.lie_max_us, 25_000 - 800);
        assert_eq!(varint(&gapless, at), Some((100, 2)));
    }

    #[test]
    fn a_datagram_it_cannot_walk_is_left_and_counted() {
        let mut l = liar(LiedDelay::Queue, LieWhen::Always);
        let mut d = vec![0x40];
        d.extend_from_slice(&[3; CID_LEN]);
        // A one-byte packet number, a frame type it does not know, then an ACK frame.
        d.extend_from_slice(&[0x01, 0x21, 0x02, 0x00, 0x05, 0x00, 0x00]);
        d.extend_from_slice(&[0; TAG_LEN]);
        let mut d = BytesMut::from(&d[..]);
        let before = d.clone();
        l.rewrite(&mut d, 1_000);
        assert_eq!(d, before);
        assert_eq!(l.summary(0).unparsed, 1);
    }
}
