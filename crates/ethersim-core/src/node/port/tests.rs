//! Unit tests of the port: its queues, gate, cut-offs and lazily settled ends.

use super::*;
use crate::engine::queue::LATER_RANK;
use crate::phy::Closer;
use crate::time::BitRate;

fn port() -> (Port, Direction) {
    let limits = QueueLimits { bytes: Some(3000), ..QueueLimits::default() };
    (Port::new(NodeId(0), LinkId(0), 0, PortId(1), limits), Direction::new(BitRate::gbps(1), Duration::ZERO))
}

fn frame(n: u32) -> Queued {
    Queued { pkt: PacketRef(n), len: 1000 }
}

#[test]
fn control_frames_go_first_and_pass_a_pause() {
    let (mut p, mut d) = port();
    p.enqueue(SimTime(0), frame(0)).unwrap();
    p.enqueue_control(frame(1));
    p.gate.close(Closer::of_mechanism(0), SimTime::NEVER);
    assert_eq!(p.next_tx(SimTime(0)), NextTx::Ready(FrameClass::Control));
    let (f, sent) = p.start(SimTime(0), FrameClass::Control, &mut d, 0);
    assert_eq!(f.pkt, PacketRef(1));
    assert_eq!(p.next_tx(SimTime(0)), NextTx::Idle, "busy");
    assert_eq!(p.finish_tx(sent.tx), Some(FrameClass::Control));
    assert_eq!(p.next_tx(sent.timing.wire_free), NextTx::Idle, "data is paused until opened");
    p.gate.open(Closer::of_mechanism(0));
    assert_eq!(p.next_tx(sent.timing.wire_free), NextTx::Ready(FrameClass::Data));
    assert_eq!(p.stats().control_sent, 1);
}

#[test]
fn a_gate_closed_until_an_instant_names_it() {
    let (mut p, _) = port();
    p.enqueue(SimTime(0), frame(0)).unwrap();
    p.gate.close(Closer::LINK, SimTime(500));
    assert_eq!(p.next_tx(SimTime(0)), NextTx::WaitUntil(SimTime(500)));
    assert_eq!(p.next_tx(SimTime(500)), NextTx::Ready(FrameClass::Data));
}

#[test]
fn a_cut_off_frame_is_lost_and_frees_its_buffer() {
    let (mut p, mut d) = port();
    p.enqueue(SimTime(0), frame(0)).unwrap();
    p.enqueue(SimTime(0), frame(1)).unwrap();
    let (_, sent) = p.start(SimTime(0), FrameClass::Data, &mut d, 0);
    assert!(p.enqueue(SimTime(10), frame(2)).is_ok());
    assert!(p.enqueue(SimTime(10), frame(3)).is_err(), "3000 B held: two frames waiting and one on the wire");
    let cut = p.cut_off(EventOrder { at: SimTime(10), seq: 1 }).unwrap();
    assert_eq!(cut.tx, sent.tx);
    assert_eq!(p.finish_tx(sent.tx), None, "the stale completion is ignored");
    assert!(p.enqueue(SimTime(10), frame(4)).is_ok());
    assert_eq!(p.stats().wire_losses, 1);
    assert_eq!(p.stats().frames_sent, 0);
}

#[test]
fn a_frame_in_its_gap_survives_the_link_going_dark() {
    let (mut p, mut d) = port();
    p.enqueue(SimTime(0), frame(0)).unwrap();
    let (_, sent) = p.start(SimTime(0), FrameClass::Data, &mut d, 0);
    assert_eq!(p.cut_off(EventOrder { at: sent.timing.last_bit, seq: 1 }), None);
    assert_eq!(p.finish_tx(sent.tx), Some(FrameClass::Data));
}

/// A port with one data frame on the wire, started at 0, its end's place `end_seq`.
fn one_frame_started(end_seq: u64) -> (Port, Sent) {
    let (mut p, mut d) = port();
    p.enqueue(SimTime(0), frame(0)).unwrap();
    let (_, sent) = p.start(SimTime(0), FrameClass::Data, &mut d, end_seq);
    (p, sent)
}

/// An end that is not an event is settled in the place its event would have had:
/// another end at the same instant, reserved before it, runs first and finds the
/// wire busy; an end reserved after it, or an event of the later rank however early
/// it was queued, finds it free.
#[test]
fn a_lazy_end_is_settled_in_its_place_among_ties() {
    let (mut p, sent) = one_frame_started(5);
    let end = sent.timing.wire_free;
    p.settle(EventOrder { at: end, seq: 4 });
    assert!(p.is_busy(), "an end reserved before runs before it");
    assert_eq!(p.stats().frames_sent, 0);
    p.settle(EventOrder { at: SimTime(end.0 - 1), seq: u64::MAX });
    assert!(p.is_busy(), "nothing before its instant finds it ended");
    // The oldest sequence of the later rank.
    p.settle(EventOrder { at: end, seq: LATER_RANK });
    assert!(!p.is_busy(), "any event of the later rank at its instant runs after it");
    assert_eq!(p.stats().frames_sent, 1);
}

/// An end made an event after all is queued in its reserved place.
#[test]
fn an_end_made_an_event_keeps_its_reserved_place() {
    let (mut p, sent) = one_frame_started(7);
    assert_eq!(p.done_event_needed(), Some((sent.tx, sent.timing.wire_free, 7)));
    assert_eq!(p.done_event_needed(), None, "queued once");
    p.settle(EventOrder::after_all_at(sent.timing.wire_free));
    assert!(p.is_busy(), "an end that is an event is not settled lazily");
}
