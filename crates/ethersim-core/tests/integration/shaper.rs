//! The token-bucket shaper against its closed forms: a saturated port sends its bucket
//! at the line rate, then one frame per frame time at the shaped rate; over any span T
//! it sends at most burst + rate·T + one frame; control frames and the other end pass
//! unshaped; a bad shaper is refused at its key.

use crate::common::{data_starts, logged_with, simulation_with, two_hosts};
use ethersim_core::ids::PortId;
use ethersim_core::scenario;

/// 1518-B frames (1,500 B of payload), a saturating source on 1 Gb/s.
const SATURATING: &str = "kind = \"saturating\"\nframe = \"1518 B\"";

fn shaped(rate: &str, burst: &str) -> Vec<(&'static str, String)> {
    vec![("links[0].shaper.rate", rate.to_string()), ("links[0].shaper.burst", burst.to_string())]
}

fn pairs<'a>(v: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    v.iter().map(|(k, s)| (*k, s.as_str())).collect()
}

/// From a full bucket a saturated port sends back to back (1,538 B of wire time a frame
/// at 1 Gb/s, 12.304 us) while the credit before each frame is not negative, earning
/// 1,538·8·100/1,000 bits during each; then every frame waits until the credit is back
/// at zero, so frames start exactly 1,518·8 bits / 100 Mb/s = 121.44 us apart. Over the
/// run it sends at most burst + rate·T + one frame.
#[test]
fn a_saturated_shaped_port_sends_its_bucket_back_to_back_then_at_the_shaped_rate() {
    let text = format!("duration = \"5 ms\"\n{}", two_hosts("1 Gb/s", "0 s", 4, SATURATING));
    let set = shaped("100 Mb/s", "15180 B");
    let mut sim = logged_with(&text, &pairs(&set));
    sim.run();
    let starts = data_starts(&sim, PortId(0));
    let wire = 1_538 * 8 * 1_000; // ps per frame with its preamble and gap at 1 Gb/s
    let per_frame = 1_518 * 8 * 10_000; // ps to earn one frame's credit at 100 Mb/s
                                        // The burst, in bits: the credit before frame k is 15,180·8 − k·1,518·8 + k·1,230.4.
    let burst =
        (0..100).take_while(|&k| 15_180.0 * 8.0 - f64::from(k) * (1_518.0 * 8.0 - 1_230.4) >= 0.0).count();
    assert_eq!(burst, 12, "10 frames of credit, and two more earned on the way");
    for k in 1..burst {
        assert_eq!(starts[k] - starts[k - 1], wire, "frame {k} goes back to back");
    }
    assert!(starts[burst] - starts[burst - 1] > wire && starts[burst] - starts[burst - 1] < per_frame);
    for k in burst + 1..starts.len() {
        assert_eq!(starts[k] - starts[k - 1], per_frame, "frame {k} waits for one frame's credit");
    }
    let sent_bytes = starts.len() as u64 * 1_518;
    let bound = 15_180 + 100_000_000 / 8 * 5 / 1_000 + 1_518;
    assert!(sent_bytes <= bound && sent_bytes + 2 * 1_518 > bound, "{sent_bytes} vs {bound}");
}

/// Over a long run the shaped port carries burst + rate·T (and at most one frame more):
/// counted in 1518-B frames received, each with 1,472 B of UDP payload, within the frames
/// that are still on their way at the end.
#[test]
fn a_shaped_port_carries_the_shaped_rate() {
    let text = format!("duration = \"1 s\"\n{}", two_hosts("1 Gb/s", "0 s", 4, SATURATING));
    for (rate_bps, burst) in [(100_000_000_u64, 3_000_u64), (250_000_000, 64_000)] {
        let set = shaped(&format!("{rate_bps} b/s"), &format!("{burst} B"));
        let mut sim = simulation_with(&text, &pairs(&set));
        sim.run();
        let summary = sim.summary("shaped", 1);
        let frames = summary.flows[0].bytes_received / 1_472;
        let allowed = (burst + rate_bps / 8) / 1_518 + 1;
        assert!(frames <= allowed && frames + 2 >= allowed, "{rate_bps}: {frames} frames vs {allowed}");
        let port = &summary.ports[0];
        let report = port.attached.shaper.as_ref().expect("the shaped port reports its shaper");
        assert_eq!((report.shaper_rate_bps, report.shaper_burst_bytes), (rate_bps, burst));
        assert!(report.shaper_holds > 1_000 && report.shaper_held_s > 0.5, "{report:?}");
        assert!(summary.ports[1].attached.shaper.is_some(), "without from, both ends are shaped");
    }
}

/// `from` shapes one end; the other sends at the line rate.
#[test]
fn from_shapes_only_its_own_end() {
    let text = format!("duration = \"10 ms\"\n{}", two_hosts("1 Gb/s", "0 s", 4, SATURATING));
    let mut set = shaped("100 Mb/s", "3 kB");
    set.push(("links[0].shaper.from", "b".to_string()));
    let mut sim = simulation_with(&text, &pairs(&set));
    sim.run();
    let summary = sim.summary("from", 1);
    assert!(summary.ports[0].attached.shaper.is_none() && summary.ports[1].attached.shaper.is_some());
    // a's frames are unshaped: back to back at 1 Gb/s for 10 ms.
    assert!(summary.ports[0].utilization > 0.999, "{}", summary.ports[0].utilization);
}

#[test]
fn a_bad_shaper_is_refused_at_its_key() {
    let text = two_hosts("1 Gb/s", "0 s", 4, "kind = \"saturating\"\ncount = 1");
    for (set, path) in [
        (shaped("0 b/s", "3 kB"), "links[0].shaper.rate"),
        (shaped("100 Mb/s", "0 B"), "links[0].shaper.burst"),
        (
            {
                let mut v = shaped("100 Mb/s", "3 kB");
                v.push(("links[0].shaper.from", "c".to_string()));
                v
            },
            "links[0].shaper.from",
        ),
    ] {
        let overrides = crate::common::overrides(&pairs(&set));
        let s = scenario::load(&text, &overrides).expect("parses");
        let err = scenario::build(&s).expect_err("refused").to_string();
        assert!(err.starts_with(path), "{err}");
    }
    let mut set = shaped("100 Mb/s", "3 kB");
    set.push(("links[0].shaper.peak", "1 Gb/s".to_string()));
    let overrides = crate::common::overrides(&pairs(&set));
    assert!(scenario::load(&text, &overrides).is_err(), "an unknown key is refused");
}
