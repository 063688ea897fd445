//! Fuzzing the two readers of users' files, for a bounded number of cases in every test
//! run (issue 27): the scenario parser (TOML text, through the schema and the network's
//! build) and the packet-trace reader (pcap and pcapng). Inputs are the shipped examples
//! with random edits (bytes flipped, inserted, deleted, the file cut short) and plain
//! random bytes. The property: every input gives `Ok` or `Err` — never a panic, and never
//! an allocation the input's size does not justify (a panic or an abort fails the test).

use ethersim_core::capture::read_trace;
use ethersim_core::validate_text;
use proptest::collection::vec;
use proptest::prelude::*;

/// Scenario files a user copies from.
const SCENARIOS: &[&str] = &[
    include_str!("../../../../examples/udp-file.toml"),
    include_str!("../../../../examples/tcp-file.toml"),
    include_str!("../../../../examples/pause-tcp.toml"),
    include_str!("../../../../examples/eee-ping.toml"),
    include_str!("../../../../examples/alr-link.toml"),
    include_str!("../../../../examples/capacity-scaling.toml"),
    include_str!("../../../../examples/csma-bridged.toml"),
    include_str!("../../../../examples/ping-outage.toml"),
    include_str!("../../../../examples/poisson-fan-in.toml"),
    include_str!("../../../../examples/saturating-host.toml"),
];

/// A pcapng capture (the shipped office trace, cut to its first 16 KiB: a header and a
/// few dozen packets are what the edits need).
fn pcapng() -> &'static [u8] {
    let bytes: &'static [u8] = include_bytes!("../../../../examples/traces/office.pcapng");
    &bytes[..bytes.len().min(16 << 10)]
}

/// A classic pcap of three Ethernet frames, the second cut to a snap length of 96.
fn pcap() -> Vec<u8> {
    let mut out = Vec::new();
    for word in [0xa1b2_c3d4_u32.to_le_bytes().as_slice(), &2u16.to_le_bytes(), &4u16.to_le_bytes()] {
        out.extend_from_slice(word);
    }
    for word in [0u32, 0, 65_535, 1] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for (i, (kept, original)) in [(60u32, 60u32), (96, 1514), (64, 64)].into_iter().enumerate() {
        let i = u32::try_from(i).expect("three records");
        for word in [i, 1_000 * i, kept, original] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend(std::iter::repeat_n(0x5a, kept as usize));
    }
    out
}

/// An edit: where (a fraction of the length), what (flip, insert, delete, cut), a byte.
type Edit = (f64, u8, u8);

fn edited(base: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut bytes = base.to_vec();
    for &(at, kind, byte) in edits {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let i = ((bytes.len() as f64) * at) as usize;
        match kind % 4 {
            0 if i < bytes.len() => bytes[i] ^= byte | 1,
            1 => bytes.insert(i.min(bytes.len()), byte),
            2 if i < bytes.len() => {
                bytes.remove(i);
            }
            3 => bytes.truncate(i),
            _ => {}
        }
    }
    bytes
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    vec((0.0..1.0f64, any::<u8>(), any::<u8>()), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn an_edited_scenario_is_parsed_or_refused_never_a_panic(
        which in 0..SCENARIOS.len(),
        edits in edits(),
    ) {
        let text = String::from_utf8_lossy(&edited(SCENARIOS[which].as_bytes(), &edits)).into_owned();
        let _ = validate_text(&text, &[]);
    }

    #[test]
    fn an_edited_capture_is_read_or_refused_never_a_panic(classic in any::<bool>(), edits in edits()) {
        let base = if classic { pcap() } else { pcapng().to_vec() };
        let _ = read_trace(&edited(&base, &edits));
    }

    #[test]
    fn random_bytes_are_refused_as_a_capture_never_a_panic(bytes in vec(any::<u8>(), 0..2048)) {
        prop_assert!(read_trace(&bytes).is_err() || bytes.len() >= 24);
    }
}

#[test]
fn the_unedited_inputs_are_read() {
    for text in SCENARIOS {
        assert!(validate_text(text, &[]).is_ok());
    }
    let classic = read_trace(&pcap()).expect("the classic pcap reads");
    // Each record's original length plus the FCS the capture left out: the record cut
    // to 96 bytes counts as the 1514-byte frame it was.
    let lengths: Vec<u32> = classic.frames.iter().map(|f| f.frame_len).collect();
    assert_eq!(lengths, [64, 1518, 68]);
    let whole: &[u8] = include_bytes!("../../../../examples/traces/office.pcapng");
    assert!(read_trace(whole).is_ok());
}
