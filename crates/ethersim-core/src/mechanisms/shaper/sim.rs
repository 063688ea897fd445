//! A token-bucket shaper meets its port: each data frame that starts spends its length
//! from the bucket (`node.rs`), and one that takes the credit below zero closes
//! the port's gate for data until the credit is back at zero. The gate reopens by
//! itself then; control frames pass meanwhile.

use crate::engine::Scheduler;
use crate::ids::PortId;
use crate::node::Moment;
use crate::sim::attach::closers;
use crate::sim::event::Event;
use crate::sim::network::Network;
use crate::time::SimTime;

impl Network {
    /// A moment of a shaped port's queue: a data frame started.
    #[inline]
    pub(crate) fn shaper_moment(&mut self, sched: &mut Scheduler<Event>, port: PortId, moment: Moment) {
        if let Moment::Dequeued(len) = moment {
            self.shaper_spend(sched.now(), port, len);
        }
    }

    /// A data frame of `len` bytes started on `port`: it spends its length; if that
    /// empties the bucket, the gate holds the next frame until the credit is back.
    #[inline(never)]
    fn shaper_spend(&mut self, now: SimTime, port: PortId, len: u32) {
        let Some(bucket) = self.attached.shapers.get_mut(port) else { return };
        if let Some(until) = bucket.on_frame_start(now, len) {
            // The frame just started holds the wire; the next waits for its credit.
            self.change_gate(now, port, closers::SHAPER, Some(until));
        }
    }
}
