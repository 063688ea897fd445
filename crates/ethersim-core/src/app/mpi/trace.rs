//! MPI traces: per-rank programs from CSV, checked before anything runs.
//!
//! The format (documented for users in `docs/mpi.md`): a header line and one row per
//! operation, in each rank's order; lines starting with `#` are comments.
//!
//! ```text
//! rank,compute_us,call,bytes,peers
//! 0,0,alltoall,4096,
//! 0,12.5,sendrecv,8192,1;3
//! ```
//!
//! - `rank`: the rank (0 to ranks − 1) whose operation this is;
//! - `compute_us`: compute time before the call, microseconds (to the picosecond);
//! - `call`: one of [`CALL_NAMES`];
//! - `bytes`: the call's size (per pair for alltoall, the vector for allreduce, per
//!   message for point-to-point; empty or 0 for barrier and none);
//! - `peers`: for send, recv and sendrecv, the other ranks, separated by `;`; empty
//!   otherwise.
//!
//! Checks: every rank makes the same collectives in the same order with the same sizes,
//! and for every ordered pair of ranks the messages one sends equal, in number, order
//! and size, those the other receives — so a replay cannot deadlock on a mismatch.

use std::collections::BTreeMap;

use super::program::{Call, Op, CALL_NAMES};
use crate::time::Duration;

/// A trace that cannot be replayed: the line (1-based, counting the header) and what was
/// wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The line, if the problem is on one.
    pub line: Option<u64>,
    /// What was wrong and what is expected.
    pub message: String,
}

impl TraceError {
    fn at(line: u64, message: impl Into<String>) -> Self {
        TraceError { line: Some(line), message: message.into() }
    }
    fn whole(message: impl Into<String>) -> Self {
        TraceError { line: None, message: message.into() }
    }
}

/// The largest size of one call, bytes (1 TiB).
pub const MAX_CALL_BYTES: u64 = 1 << 40;

const COLUMNS: [&str; 5] = ["rank", "compute_us", "call", "bytes", "peers"];
/// The longest compute time a trace may give (one day), us.
const MAX_COMPUTE_US: f64 = 86_400e6;

/// Reads a trace of `ranks` ranks from CSV `text`: one program per rank.
pub fn parse(text: &str, ranks: u32) -> Result<Vec<Vec<Op>>, TraceError> {
    let mut reader =
        csv::ReaderBuilder::new().comment(Some(b'#')).trim(csv::Trim::All).from_reader(text.as_bytes());
    let headers = reader.headers().map_err(|e| TraceError::whole(format!("unreadable header: {e}")))?.clone();
    let names: Vec<&str> = headers.iter().collect();
    if names != COLUMNS {
        return Err(TraceError::at(1, format!("header is {names:?}; expected exactly {COLUMNS:?}")));
    }
    let mut programs: Vec<Vec<Op>> = vec![Vec::new(); ranks as usize];
    for record in reader.records() {
        let record = record.map_err(|e| TraceError {
            line: e.position().map(csv::Position::line),
            message: format!("unreadable row: {e}"),
        })?;
        let line = record.position().map_or(0, csv::Position::line);
        let (rank, op) = row(&record, line, ranks)?;
        programs[rank as usize].push(op);
    }
    check_matching(&programs)?;
    Ok(programs)
}

fn row(record: &csv::StringRecord, line: u64, ranks: u32) -> Result<(u32, Op), TraceError> {
    let field = |i: usize| record.get(i).unwrap_or("");
    let rank: u32 = field(0).parse().ok().filter(|&r| r < ranks).ok_or_else(|| {
        TraceError::at(line, format!("rank {:?}; expected an integer from 0 to {}", field(0), ranks - 1))
    })?;
    let compute_us: f64 =
        field(1).parse().ok().filter(|c: &f64| (0.0..=MAX_COMPUTE_US).contains(c)).ok_or_else(|| {
            TraceError::at(
                line,
                format!("compute_us {:?}; expected a number of microseconds from 0 to 8.64e10", field(1)),
            )
        })?;
    let compute = Duration((compute_us * 1e6).round() as u64);
    let bytes: u64 = if field(3).is_empty() {
        0
    } else {
        field(3).parse().ok().filter(|&b| b <= MAX_CALL_BYTES).ok_or_else(|| {
            TraceError::at(line, format!("bytes {:?}; expected an integer from 0 to 2^40", field(3)))
        })?
    };
    let peers = peers(field(4), rank, ranks, line)?;
    let name = field(2);
    let call = match name {
        "none" | "barrier" => {
            if bytes != 0 {
                return Err(TraceError::at(line, format!("{name} carries no bytes; got {bytes}")));
            }
            if name == "none" {
                Call::None
            } else {
                Call::Barrier
            }
        }
        "alltoall" => Call::Alltoall { bytes },
        "allreduce" => Call::Allreduce { bytes },
        "send" => Call::Send { bytes, peers: peers.clone() },
        "recv" => Call::Recv { bytes, peers: peers.clone() },
        "sendrecv" => Call::Sendrecv { bytes, peers: peers.clone() },
        other => {
            return Err(TraceError::at(
                line,
                format!("call {other:?}; expected one of {}", CALL_NAMES.join(", ")),
            ));
        }
    };
    let point_to_point = matches!(call, Call::Send { .. } | Call::Recv { .. } | Call::Sendrecv { .. });
    if point_to_point && peers.is_empty() {
        return Err(TraceError::at(line, format!("{name} needs peers (ranks separated by ';')")));
    }
    if !point_to_point && !peers.is_empty() {
        return Err(TraceError::at(line, format!("{name} takes no peers; got {:?}", field(4))));
    }
    Ok((rank, Op { compute, call }))
}

fn peers(text: &str, rank: u32, ranks: u32, line: u64) -> Result<Vec<u32>, TraceError> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(';')
        .map(|p| {
            p.trim().parse::<u32>().ok().filter(|&q| q < ranks && q != rank).ok_or_else(|| {
                TraceError::at(
                    line,
                    format!(
                        "peer {p:?}; expected another rank from 0 to {} (peers separated by ';')",
                        ranks - 1
                    ),
                )
            })
        })
        .collect()
}

/// Collectives must agree across ranks; point-to-point messages must pair up.
fn check_matching(programs: &[Vec<Op>]) -> Result<(), TraceError> {
    let collectives = |ops: &[Op]| -> Vec<Call> {
        ops.iter().filter(|o| o.call.is_collective()).map(|o| o.call.clone()).collect()
    };
    let first = collectives(&programs[0]);
    for (r, ops) in programs.iter().enumerate().skip(1) {
        let mine = collectives(ops);
        if mine != first {
            let at = first.iter().zip(&mine).position(|(a, b)| a != b).unwrap_or(first.len().min(mine.len()));
            return Err(TraceError::whole(format!(
                "rank {r} makes different collectives from rank 0 (they part at collective {at}: {:?} against {:?}); \
                 every rank must make the same collectives in the same order",
                first.get(at),
                mine.get(at)
            )));
        }
    }
    // Sizes of the messages from each rank to each other, as sent and as received.
    let mut sent: BTreeMap<(u32, u32), Vec<u64>> = BTreeMap::new();
    let mut received: BTreeMap<(u32, u32), Vec<u64>> = BTreeMap::new();
    for (r, ops) in programs.iter().enumerate() {
        let r = r as u32;
        for op in ops {
            match &op.call {
                Call::Send { bytes, peers } => {
                    for &q in peers {
                        sent.entry((r, q)).or_default().push(*bytes);
                    }
                }
                Call::Recv { bytes, peers } => {
                    for &q in peers {
                        received.entry((q, r)).or_default().push(*bytes);
                    }
                }
                Call::Sendrecv { bytes, peers } => {
                    for &q in peers {
                        sent.entry((r, q)).or_default().push(*bytes);
                        received.entry((q, r)).or_default().push(*bytes);
                    }
                }
                _ => {}
            }
        }
    }
    for key in sent.keys().chain(received.keys()) {
        let (s, r) = (sent.get(key), received.get(key));
        if s != r {
            let n = |v: Option<&Vec<u64>>| v.map_or(0, Vec::len);
            return Err(TraceError::whole(format!(
                "rank {} sends rank {} {} messages of {:?} B but rank {} receives {} of {:?} B; \
                 point-to-point messages must pair up in number, order and size",
                key.0,
                key.1,
                n(s),
                s.map_or(&[][..], Vec::as_slice),
                key.1,
                n(r),
                r.map_or(&[][..], Vec::as_slice),
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_becomes_one_program_per_rank() {
        let text = "# a halo exchange\nrank,compute_us,call,bytes,peers\n\
                    0,1.5,sendrecv,64,1\n1,0,sendrecv,64,0\n0,0,barrier,,\n1,2,barrier,0,\n1,3,none,,\n";
        let p = parse(text, 2).expect("valid");
        assert_eq!(p[0].len(), 2);
        assert_eq!(
            p[0][0],
            Op { compute: Duration(1_500_000), call: Call::Sendrecv { bytes: 64, peers: vec![1] } }
        );
        assert_eq!(p[1][2], Op { compute: Duration::from_us(3), call: Call::None });
    }

    #[test]
    fn bad_rows_name_their_line() {
        let head = "rank,compute_us,call,bytes,peers\n";
        let cases = [
            ("0,0,bcast,1,\n", "call \"bcast\""),
            ("5,0,barrier,,\n", "rank \"5\""),
            ("0,-1,barrier,,\n", "compute_us"),
            ("0,0,send,8,\n", "needs peers"),
            ("0,0,send,8,0\n", "peer \"0\""),
            ("0,0,barrier,8,\n", "carries no bytes"),
            ("0,0,alltoall,8,1\n", "takes no peers"),
        ];
        for (row, want) in cases {
            let e = parse(&format!("{head}{row}"), 2).expect_err(row);
            assert_eq!(e.line, Some(2), "{row}");
            assert!(e.message.contains(want), "{row}: {}", e.message);
        }
        let e = parse("rank,call\n", 2).expect_err("header");
        assert!(e.message.contains("expected exactly"), "{}", e.message);
    }

    #[test]
    fn mismatched_collectives_and_messages_are_refused() {
        let head = "rank,compute_us,call,bytes,peers\n";
        let e = parse(&format!("{head}0,0,alltoall,8,\n1,0,alltoall,16,\n"), 2).expect_err("sizes");
        assert!(e.message.contains("different collectives"), "{}", e.message);
        let e = parse(&format!("{head}0,0,send,8,1\n1,0,recv,16,0\n"), 2).expect_err("p2p");
        assert!(e.message.contains("must pair up"), "{}", e.message);
        parse(&format!("{head}0,0,send,8,1\n1,0,recv,8,0\n"), 2).expect("paired");
    }
}
