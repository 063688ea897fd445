//! Hosts: the transmit and receive paths between endpoints and the host's port.

use crate::engine::Scheduler;
use crate::ids::NodeId;
use crate::node::{RxStep, TxStep};
use crate::sim::event::Event;
use crate::sim::network::Network;
use crate::sim::trace::DropReason;
use crate::wire::PacketRef;

impl Network {
    /// A host's transmit path takes the packet `r` from one of its endpoints.
    pub(in crate::sim) fn host_send(&mut self, sched: &mut Scheduler<Event>, node: NodeId, r: PacketRef) {
        let now = sched.now();
        let host = self.host_mut(node);
        let port = host.port;
        match host.accept_tx(now, r) {
            TxStep::ToNic(r) => self.port_send(sched, port, r),
            TxStep::ProcessUntil(t) => sched.schedule_at(t, Event::HostTxProcessed { node }),
            TxStep::Queued => {}
        }
    }

    pub(in crate::sim) fn on_host_tx_processed(&mut self, sched: &mut Scheduler<Event>, node: NodeId) {
        let now = sched.now();
        let host = self.host_mut(node);
        let port = host.port;
        let (r, next) = host.finish_tx_processing(now);
        if let Some(t) = next {
            sched.schedule_at(t, Event::HostTxProcessed { node });
        }
        self.port_send(sched, port, r);
    }

    /// A host's port received the packet `r` whole.
    pub(in crate::sim) fn host_receive(&mut self, sched: &mut Scheduler<Event>, node: NodeId, r: PacketRef) {
        let now = sched.now();
        match self.host_mut(node).accept_rx(now, r) {
            RxStep::Deliver(r) => self.deliver(sched, node, r),
            RxStep::ProcessUntil(t) => sched.schedule_at(t, Event::HostRxProcessed { node }),
            RxStep::Queued => {}
            RxStep::Dropped(r) => self.lose(now, r, None, node, DropReason::RingFull),
        }
    }

    pub(in crate::sim) fn on_host_rx_processed(&mut self, sched: &mut Scheduler<Event>, node: NodeId) {
        let now = sched.now();
        let (r, next) = self.host_mut(node).finish_rx_processing(now);
        if let Some(t) = next {
            sched.schedule_at(t, Event::HostRxProcessed { node });
        }
        self.deliver(sched, node, r);
    }
}
