//! Small typed indices into the network's tables. A model refers to another by id,
//! never by pointer, so the network is a set of flat `Vec`s.

use std::num::NonZeroU32;

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The index into the owning table.
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// A node (host or switch) of the network.
    NodeId
);
id!(
    /// A port: one end of a link, with its transmit queue and its direction of the link.
    PortId
);
/// A flow: one conversation between two endpoints, one row of the results. It is stored
/// as its number plus one, so that `Option<FlowId>` (a MAC control frame belongs to no
/// flow) is no larger than a `FlowId`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(NonZeroU32);

impl FlowId {
    /// Flow number `number` (its row in the flows table).
    ///
    /// # Panics
    /// At `u32::MAX`, beyond the scenario's limit on applications.
    pub const fn new(number: u32) -> Self {
        match NonZeroU32::new(number.wrapping_add(1)) {
            Some(n) => FlowId(n),
            None => panic!("flow number beyond u32::MAX - 1"),
        }
    }

    /// Its number: the index into the flows table.
    pub const fn index(self) -> usize {
        self.number() as usize
    }

    /// Its number.
    pub const fn number(self) -> u32 {
        self.0.get() - 1
    }
}

impl std::fmt::Debug for FlowId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FlowId({})", self.number())
    }
}
id!(
    /// A link: a channel joining ports (point-to-point now, a shared bus later).
    LinkId
);
id!(
    /// An endpoint: one end of one or more flows, living on a host.
    EndpointId
);
