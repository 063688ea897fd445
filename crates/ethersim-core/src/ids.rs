//! Small typed indices into the network's tables. A model refers to another by id,
//! never by pointer, so the network is a set of flat `Vec`s.

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
id!(
    /// A flow: one conversation between two endpoints, one row of the results.
    FlowId
);
id!(
    /// A link: a channel joining ports (point-to-point now, a shared bus later).
    LinkId
);
id!(
    /// An endpoint: one end of one or more flows, living on a host.
    EndpointId
);

impl FlowId {
    /// No flow: what a MAC control frame belongs to.
    pub const NONE: FlowId = FlowId(u32::MAX);
}
