//! What a mechanism sees of a port's queue. It lives below the nodes (which own the
//! queues) so that link mechanisms watching queues (rate policies) and port mechanisms
//! (queue policies) share it without the link layer reaching up into the nodes.

/// What a policy sees of its queue: frames waiting (not counting one on the wire) and
/// their bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueView {
    /// Frames waiting.
    pub frames: usize,
    /// Bytes waiting.
    pub bytes: u64,
}
