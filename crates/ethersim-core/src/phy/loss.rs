//! Frame loss on a link: random loss with a probability per direction, drawn from the
//! link's own named stream, and scripted loss of chosen frames of a flow. A lost frame
//! travels the wire in full (it takes the line time) and is discarded by the receiver,
//! as a frame with a bad FCS is (802.3 clause 3.2.9): the receiving node never sees it.

use rand::Rng;

use crate::engine::rng::Stream;
use crate::ids::FlowId;
use crate::wire::{Packet, PacketKind, Role};

/// Lose chosen frames of one flow's direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptedLoss {
    /// The flow.
    pub flow: FlowId,
    /// The end its frames travel to (`Sink`: data; `Source`: ACKs and replies).
    pub to: Role,
    /// Ordinals (from 1) among that flow direction's frames arriving over this link,
    /// ascending.
    pub frames: Vec<u64>,
    seen: u64,
    next: usize,
}

impl ScriptedLoss {
    /// Loses the frames with these ordinals (from 1; sorted and deduplicated here).
    pub fn new(flow: FlowId, to: Role, mut frames: Vec<u64>) -> Self {
        frames.sort_unstable();
        frames.dedup();
        ScriptedLoss { flow, to, frames, seen: 0, next: 0 }
    }

    fn loses(&mut self, pkt: &Packet) -> bool {
        if pkt.flow != Some(self.flow) || pkt.to != self.to {
            return false;
        }
        self.seen += 1;
        if self.frames.get(self.next) == Some(&self.seen) {
            self.next += 1;
            true
        } else {
            false
        }
    }
}

/// The loss model of one link.
#[derive(Clone, Debug)]
pub struct LossModel {
    /// Probability that a frame is lost, by the end of the link that sent it.
    pub probability: [f64; 2],
    scripted: Vec<ScriptedLoss>,
    rng: Stream,
    lost: [u64; 2],
}

impl LossModel {
    /// A model losing frames sent by end `i` with `probability[i]`, drawn from `rng`,
    /// and the frames `scripted` names.
    pub fn new(probability: [f64; 2], rng: Stream, scripted: Vec<ScriptedLoss>) -> Self {
        LossModel { probability, scripted, rng, lost: [0; 2] }
    }

    /// Whether `pkt`, arriving over the direction sent by end `dir`, is lost. Every
    /// frame draws once from the stream when that direction's probability is positive,
    /// whether or not a script loses it, so scripts never shift the random losses.
    pub fn loses(&mut self, dir: usize, pkt: &Packet) -> bool {
        let mut lost = false;
        if pkt.kind != PacketKind::Control {
            for s in &mut self.scripted {
                lost |= s.loses(pkt);
            }
        }
        let p = self.probability[dir];
        if p > 0.0 {
            let u: f64 = self.rng.random();
            lost |= u < p;
        }
        if lost {
            self.lost[dir] += 1;
        }
        lost
    }

    /// Frames lost so far, by the end that sent them.
    pub fn lost(&self) -> [u64; 2] {
        self.lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng;
    use crate::ids::NodeId;
    use crate::time::SimTime;
    use crate::wire::Protocol;

    fn pkt(flow: u32, to: Role) -> Packet {
        Packet {
            kind: PacketKind::Data,
            protocol: Protocol::Udp,
            to,
            flow: Some(FlowId::new(flow)),
            src: NodeId(0),
            dst: NodeId(1),
            seq: 0,
            frame_len: 100,
            payload: 50,
            created: SimTime::ZERO,
            echo: SimTime::NEVER,
        }
    }

    #[test]
    fn a_script_loses_exactly_the_frames_it_names() {
        let script = ScriptedLoss::new(FlowId::new(1), Role::Sink, vec![5, 2, 2]);
        let mut m = LossModel::new([0.0; 2], rng::stream(1, "t"), vec![script]);
        let mut lost = Vec::new();
        for i in 1..=8 {
            // Frames of other flows and directions do not count.
            assert!(!m.loses(0, &pkt(0, Role::Sink)));
            assert!(!m.loses(1, &pkt(1, Role::Source)));
            if m.loses(0, &pkt(1, Role::Sink)) {
                lost.push(i);
            }
        }
        assert_eq!(lost, vec![2, 5]);
        assert_eq!(m.lost(), [2, 0]);
    }

    #[test]
    fn random_loss_matches_its_probability() {
        let mut m = LossModel::new([0.1, 0.0], rng::stream(7, "link"), Vec::new());
        let n = 200_000;
        let lost = (0..n).filter(|_| m.loses(0, &pkt(0, Role::Sink))).count() as f64;
        // Binomial: mean 20000, standard deviation about 134; allow 5 sigma.
        assert!((lost - 20_000.0).abs() < 5.0 * 134.2, "{lost}");
        assert!((0..1000).all(|_| !m.loses(1, &pkt(0, Role::Source))), "the other direction loses nothing");
    }
}
