//! Shared-medium segments (CSMA/CD): a station's MAC taking a frame from its port, the
//! steps of its state machine as its timer fires (`phy/bus.rs`), and frames reaching
//! their receivers.

use crate::engine::{Generation, Scheduler, Timer};
use crate::ids::{LinkId, PortId};
use crate::mechanisms::csma::phy::bus::{Bus, Handover, HeldFrame, MacState, MacStep};
use crate::phy::{ByLink, FrameClass};
use crate::sim::attach::MechanismTimer;
use crate::sim::event::Event;
use crate::sim::network::Network;
use crate::sim::trace::{DropReason, TraceRecord};
use crate::time::SimTime;
use crate::wire::ethernet::INTER_FRAME_GAP;

/// The segment of `link` (a link whose port reached here is a segment).
fn bus_of(segments: &mut ByLink<Bus>, link: LinkId) -> &mut Bus {
    // Only ports and timers of segments take this path.
    segments.get_mut(link).expect("a shared-medium step on a link that is no segment")
}

// Every event of a segment is queued through the three functions below, out of line: each
// inlined use of the event queue's push adds to the code that the hot handlers inline,
// and past some size the compiler stops inlining the push into them (which cost 4-7% on
// the point-to-point bench scenarios).

#[inline(never)]
fn arm(sched: &mut Scheduler<Event>, timer: &mut Timer, at: SimTime, event: Event) {
    sched.arm(timer, at, |g| with_generation(event, g));
}

#[inline(never)]
fn schedule(sched: &mut Scheduler<Event>, at: SimTime, event: Event) {
    sched.schedule_at(at, event);
}

#[inline(never)]
fn fires(sched: &mut Scheduler<Event>, timer: &mut Timer, generation: Generation, event: Event) -> bool {
    sched.timer_fires(timer, generation, |g| with_generation(event, g))
}

/// `event` for a new generation of its timer.
fn with_generation(event: Event, generation: Generation) -> Event {
    match event {
        Event::Mechanism { target, timer, .. } => Event::Mechanism { target, timer, generation },
        other => other,
    }
}

impl Network {
    /// `port`, a station of a segment, may start a frame of `class`: its MAC takes it and
    /// starts deferring. Returns the frame's length.
    #[inline(never)]
    pub(crate) fn bus_take(&mut self, sched: &mut Scheduler<Event>, port: PortId, class: FrameClass) -> u32 {
        let now = sched.now();
        let p = &mut self.ports[port.index()];
        let link = p.link;
        let frame = p.take_for_mac(now, class);
        let dst = self.packets.get(frame.pkt).dst;
        let bus = bus_of(&mut self.attached.segments, link);
        let i = bus.station_of(port);
        let held = HeldFrame { pkt: frame.pkt, len: frame.len, class, dst, since: now, collisions: 0 };
        let step = bus.take(i, now, held);
        self.carry_out(sched, link, i, step);
        frame.len
    }

    #[inline(never)]
    pub(crate) fn on_csma_timer(
        &mut self,
        sched: &mut Scheduler<Event>,
        link: LinkId,
        i: usize,
        generation: Generation,
    ) {
        let bus = bus_of(&mut self.attached.segments, link);
        let event = MechanismTimer::Csma { station: i as u16 }.event(link.0, generation);
        if !fires(sched, &mut bus.stations[i].timer, generation, event) {
            return;
        }
        let step = bus.step(i, sched.now());
        self.carry_out(sched, link, i, step);
    }

    /// Carries out station `i`'s MAC step: arms its timer, and the timers of stations its
    /// transmission or jam affects; hands a frame sent whole to its receiver; frees the
    /// port when the frame is sent or dropped.
    fn carry_out(&mut self, sched: &mut Scheduler<Event>, link: LinkId, i: usize, step: MacStep) {
        let now = sched.now();
        let bus = bus_of(&mut self.attached.segments, link);
        let frame = match step {
            MacStep::Wait(at) => {
                if !at.is_never() {
                    let event = MechanismTimer::Csma { station: i as u16 }.event(link.0, 0);
                    arm(sched, &mut bus.stations[i].timer, at, event);
                }
                let st = &bus.stations[i];
                if self.trace.is_on() {
                    let port = st.port;
                    let record = match st.state {
                        MacState::Transmitting if st.tx_start == now => {
                            Some(TraceRecord::MacAttempt { port, end: st.tx_end })
                        }
                        MacState::Jamming => Some(TraceRecord::MacJam { port, end: at }),
                        MacState::Backoff => Some(TraceRecord::MacBackoff { port, until: at }),
                        _ => None,
                    };
                    if let Some(r) = record {
                        self.trace.emit(now, || r);
                    }
                }
                let mut arm_other = |k: usize, timer: &mut crate::engine::Timer, at: SimTime| {
                    arm(sched, timer, at, MechanismTimer::Csma { station: k as u16 }.event(link.0, 0));
                };
                if st.state == MacState::Transmitting && st.tx_start == now {
                    // It started now: stations already sending detect the collision.
                    bus.arm_detected(i, &mut arm_other);
                } else if st.state == MacState::Jamming {
                    // Its jam cut its carrier short: stations deferring to it may go sooner.
                    bus.arm_shortened(i, at, &mut arm_other);
                }
                return;
            }
            MacStep::Sent(frame) | MacStep::Dropped(frame) => frame,
        };
        let port = bus.stations[i].port;
        let node = bus.stations[i].node;
        let sent = matches!(step, MacStep::Sent(_));
        if sent {
            let start = bus.stations[i].tx_start;
            let gap = bus.medium.bits(8 * INTER_FRAME_GAP.get());
            match bus.deliver(i, now, &frame) {
                Handover::Event(at, generation) => {
                    schedule(sched, at, MechanismTimer::BusDelivery.event(link.0, generation));
                }
                Handover::Queued => {}
                // Routes lead every frame a station sends to a station that takes it.
                Handover::NoReceiver => self.lose(now, frame.pkt, Some(port), node, DropReason::Unroutable),
            }
            self.ports[port.index()].mac_sent(start, now, now + gap);
        } else {
            self.lose(now, frame.pkt, Some(port), node, DropReason::ExcessiveCollisions);
            self.ports[port.index()].mac_dropped(now);
        }
        self.trace.emit(now, || TraceRecord::MacDone {
            port,
            class: frame.class,
            frame_len: frame.len,
            sent,
        });
        self.after_tx_end(sched, port);
        if frame.class == FrameClass::Data {
            self.release_host_buffer(sched, node);
        }
    }

    #[inline(never)]
    pub(crate) fn on_bus_delivery(
        &mut self,
        sched: &mut Scheduler<Event>,
        link: LinkId,
        generation: Generation,
    ) {
        let bus = bus_of(&mut self.attached.segments, link);
        if !fires(
            sched,
            &mut bus.delivery_timer,
            generation,
            MechanismTimer::BusDelivery.event(link.0, generation),
        ) {
            return;
        }
        let (d, next) = bus.arrive(sched.now());
        if let Some((at, generation)) = next {
            schedule(sched, at, MechanismTimer::BusDelivery.event(link.0, generation));
        }
        self.receive(sched, d.port, d.pkt);
    }
}
