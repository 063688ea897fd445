//! Voice codecs as a call sees them: how often a packet leaves, how much voice it
//! carries, how much delay the encoder adds, and the E-model's view of the codec's
//! quality: its equipment impairment factor `Ie` and its packet-loss robustness `Bpl`.
//!
//! `Ie` and `Bpl` are the provisional planning values of ITU-T G.113 (11/2007)
//! Appendix I, for random packet loss.
//! The payload is the codec's bit rate over one packet interval; the RTP/UDP/IPv4
//! headers (40 B) are added below it as for any UDP packet.

use crate::time::Duration;

/// A voice codec profile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Codec {
    /// Its name in scenarios and results.
    pub name: &'static str,
    /// Voice carried by one packet (the packetization interval).
    pub interval: Duration,
    /// Codec payload per packet, bytes.
    pub payload: u32,
    /// Delay the encoder adds before a packet can leave: the packet interval of voice
    /// it must have collected, plus the codec's look-ahead (none for G.711; 5 ms for
    /// G.729, whose frames are 10 ms).
    pub encoder_delay: Duration,
    /// Equipment impairment factor (G.113 Appendix I).
    pub ie: f64,
    /// Packet-loss robustness factor (G.113 Appendix I).
    pub bpl: f64,
}

/// G.711 µ/A-law at 64 kbit/s, 20 ms per packet, with the packet-loss concealment of
/// G.711 Appendix I: Ie 0, Bpl 25.1.
pub const G711: Codec = Codec {
    name: "G.711",
    interval: Duration::from_ms(20),
    payload: 160,
    encoder_delay: Duration::from_ms(20),
    ie: 0.0,
    bpl: 25.1,
};

/// G.711 without packet-loss concealment (a lost packet is silence): Ie 0, Bpl 4.3.
pub const G711_NO_PLC: Codec = Codec { name: "G.711-noPLC", bpl: 4.3, ..G711 };

/// G.729 Annex A at 8 kbit/s, two 10 ms frames per 20 ms packet, with its own loss
/// concealment: Ie 11, Bpl 19.0. Its encoder looks 5 ms ahead.
pub const G729A: Codec = Codec {
    name: "G.729A",
    interval: Duration::from_ms(20),
    payload: 20,
    encoder_delay: Duration::from_ms(25),
    ie: 11.0,
    bpl: 19.0,
};

/// Every codec a scenario may name, by name.
pub const CODECS: [Codec; 3] = [G711, G711_NO_PLC, G729A];

/// The codec called `name`, if there is one.
pub fn by_name(name: &str) -> Option<Codec> {
    CODECS.iter().copied().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_are_the_bit_rate_over_one_interval() {
        // 64 kbit/s and 8 kbit/s over 20 ms.
        assert_eq!(u64::from(G711.payload) * 8, 64_000 * 20 / 1000);
        assert_eq!(u64::from(G729A.payload) * 8, 8_000 * 20 / 1000);
        assert_eq!(by_name("G.729A"), Some(G729A));
        assert_eq!(by_name("g729"), None);
    }
}
