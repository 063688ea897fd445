//! Runs one scenario file and prints its summary as JSON: a standalone runner for
//! profiling the core without the Python front (`valgrind --tool=cachegrind`, `perf`).
//!
//! ```text
//! cargo build --release --example run_scenario
//! valgrind --tool=cachegrind target/release/examples/run_scenario \
//!     python/ethersim/bench_scenarios/mpi-alltoall-eee.toml > summary.json
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_scenario SCENARIO.toml");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    match ethersim_core::run_text(&text, &[], None) {
        Ok(report) => {
            // A summary of plain numbers and strings always serializes.
            println!("{}", serde_json::to_string(&report.summary).expect("summary serializes"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::FAILURE
        }
    }
}
