//! IPv4 header geometry (RFC 791).

/// IPv4 header without options (RFC 791 section 3.1: IHL = 5 words).
pub const IPV4_HEADER_LEN: u64 = 20;
