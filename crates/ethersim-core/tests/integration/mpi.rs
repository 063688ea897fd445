//! MPI jobs against closed forms: the pairwise alltoall of four ranks on an idle star,
//! message and byte counts of each collective, ranks of one host that skip the network,
//! and a job whose ranks never leave one host.

#![allow(clippy::format_push_string)] // test scenarios are assembled as text

use crate::common::simulation_with;
use ethersim_core::sim::RunSummary;

const NS: u64 = 1_000;

/// Hosts n0..n3 on one switch, 1 Gb/s links of 1 us; the job's table follows.
fn star(job: &str) -> String {
    let mut text = String::from("[[switches]]\nname = \"sw\"\n");
    for i in 0..4 {
        text.push_str(&format!(
            "[[hosts]]\nname = \"n{i}\"\n[[links]]\nbetween = [\"n{i}\", \"sw\"]\nrate = \"1 Gb/s\"\ndelay = \"1 us\"\n"
        ));
    }
    text + job
}

fn run(text: &str) -> RunSummary {
    run_with(text, &[])
}

/// [`run`] with `pairs` set by key path.
fn run_with(text: &str, pairs: &[(&str, &str)]) -> RunSummary {
    let mut sim = simulation_with(text, pairs);
    sim.run();
    sim.summary("mpi", 1)
}

/// The line time of a frame of `len` bytes at 1 Gb/s, ns: preamble and frame, then the gap.
const fn frame_ns(len: u64) -> u64 {
    (8 + len) * 8
}
const GAP_NS: u64 = 96;

#[test]
fn a_pairwise_alltoall_of_four_ranks_takes_three_store_and_forward_hops_pairs() {
    // In each of the P - 1 = 3 steps every rank sends one block to a different rank, so
    // every switch output carries exactly one message per step: no contention. A step
    // ends when the block's last frame reaches its rank.
    //
    // 1000 B blocks: one 1046 B frame (14 + 20 + 8 + 1000 + 4). A step is two hops of
    // line time and delay: 2 (8432 + 1000) ns.
    let job = "[[mpi_jobs]]\nname = \"a2a\"\nnodes = [\"n0\", \"n1\", \"n2\", \"n3\"]\n\
               synthetic = { collective = \"alltoall\", bytes = \"1000 B\", iterations = 1 }\n";
    let one_frame = run(&star(job));
    let step = 2 * (frame_ns(1046) + 1000);
    let j = &one_frame.jobs[0];
    assert!(j.completed);
    assert_eq!((j.messages, j.frames, j.bytes, j.intra_messages), (12, 12, 12_000, 0));
    assert!((j.communications_per_node - 3.0).abs() < 1e-12 && (j.mean_bytes - 1000.0).abs() < 1e-12);
    assert_eq!(j.elapsed_ps, Some(3 * step * NS));

    // 4000 B blocks: frames of 1518, 1518 and 1102 B. The switch forwards each frame as
    // it arrives at the same rate, so the last bit reaches the rank one first frame's
    // line time and two delays after the sender's whole train: d + (1526 × 8) + train + d.
    let three_frames = run_with(&star(job), &[("mpi_jobs[0].synthetic.bytes", "4000 B")]);
    let train = frame_ns(1518) + GAP_NS + frame_ns(1518) + GAP_NS + frame_ns(1102);
    let step = 1000 + frame_ns(1518) + train + 1000;
    let j = &three_frames.jobs[0];
    assert_eq!((j.messages, j.frames), (12, 36));
    assert_eq!(j.elapsed_ps, Some(3 * step * NS));
}

#[test]
fn the_call_overhead_is_fixed_plus_per_byte_before_the_first_message() {
    // 2 us + 1 ns x 3000 B sent by each rank = 5 us before each alltoall.
    let job = "[[mpi_jobs]]\nname = \"a2a\"\nnodes = [\"n0\", \"n1\", \"n2\", \"n3\"]\n\
               overhead = { fixed = \"2 us\", per_byte = \"1 ns\" }\n\
               synthetic = { collective = \"alltoall\", bytes = \"1000 B\", sleep = \"7 us\", iterations = 2 }\n";
    let s = run(&star(job));
    let step = 2 * (frame_ns(1046) + 1000);
    let iteration = 5_000 + 3 * step;
    // Two iterations, each followed by its sleep.
    assert_eq!(s.jobs[0].elapsed_ps, Some((2 * iteration + 2 * 7_000) * NS));
    // Rank 0's operations: call 1, (sleep, call 2), (sleep); its calls end a sleep and a
    // call apart.
    assert_eq!(s.jobs[0].operations, 3);
    let times = &s.jobs[0].operation_batch_means_s;
    assert_eq!(times.len(), 1);
    assert!((times[0] - ((7_000 + iteration) * NS) as f64 * 1e-12).abs() < 1e-15);
}

#[test]
fn ranks_sharing_a_host_skip_the_network() {
    // Four ranks, two per host: of each rank's three alltoall blocks one stays on its host.
    let job = "[[mpi_jobs]]\nname = \"a2a\"\nnodes = [\"n0\", \"n1\"]\nprocesses_per_node = 2\n\
               synthetic = { collective = \"alltoall\", bytes = \"1000 B\", iterations = 10 }\n";
    let s = run(&star(job));
    let j = &s.jobs[0];
    assert!(j.completed);
    assert_eq!((j.messages, j.intra_messages), (80, 40));
    assert!((j.communications_per_node - 40.0).abs() < 1e-12);
    // Two flows (n0->n1, n1->n0), each carrying 40 messages of one frame, all delivered.
    let flows: Vec<_> = s.flows.iter().filter(|f| f.name.starts_with("a2a:")).collect();
    assert_eq!(flows.len(), 2);
    assert!(flows.iter().all(|f| f.packets_sent == 40 && f.packets_received == 40 && f.in_flight == 0));
    assert_eq!(s.job_nodes.iter().map(|n| n.counts.messages_received).sum::<u64>(), 80);
}

#[test]
fn allreduce_and_barrier_send_what_their_algorithms_say() {
    // Ring allreduce of 4000 B over 4 ranks: 2 (P - 1) = 6 steps of a 1000 B chunk per
    // rank: 24 messages, 24,000 B. Dissemination barrier: 2 steps of empty messages: 8.
    let job = |call: &str| {
        format!(
            "[[mpi_jobs]]\nname = \"c\"\nnodes = [\"n0\", \"n1\", \"n2\", \"n3\"]\n\
             synthetic = {{ collective = \"{call}\", {} iterations = 3 }}\n",
            if call == "barrier" { "" } else { "bytes = \"4000 B\"," }
        )
    };
    let reduce = run(&star(&job("allreduce")));
    assert_eq!((reduce.jobs[0].messages, reduce.jobs[0].bytes), (3 * 24, 3 * 24_000));
    // The ring joins each host to the next only: four flows, not twelve.
    let names: Vec<&str> = reduce.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["c:n0->n1", "c:n1->n2", "c:n2->n3", "c:n3->n0"]);
    let barrier = run(&star(&job("barrier")));
    let j = &barrier.jobs[0];
    assert_eq!((j.messages, j.bytes, j.frames), (3 * 8, 0, 3 * 8));
    // A barrier step is two hops of a minimum (64 B) frame.
    let step = 2 * (frame_ns(64) + 1000);
    assert_eq!(j.elapsed_ps, Some(3 * 2 * step * NS));
}

#[test]
fn a_job_on_one_host_runs_to_its_end_without_any_flow() {
    let job = "[[mpi_jobs]]\nname = \"solo\"\nnodes = [\"n0\"]\nprocesses_per_node = 4\n\
               synthetic = { collective = \"alltoall\", bytes = \"1 KiB\", sleep = \"10 us\", iterations = 5 }\n";
    let s = run(&star(job));
    let j = &s.jobs[0];
    assert!(j.completed);
    assert_eq!((j.messages, j.intra_messages), (0, 5 * 12));
    assert_eq!(j.elapsed_ps, Some(50_000_000));
}

#[test]
fn idle_intervals_of_a_host_port_are_the_sleeps_between_iterations() {
    // One frame per step, three steps, then a 100 us sleep: n0's port is silent from the
    // end of its third frame's gap until its next call's first frame.
    let job = "[[mpi_jobs]]\nname = \"a2a\"\nnodes = [\"n0\", \"n1\", \"n2\", \"n3\"]\n\
               synthetic = { collective = \"alltoall\", bytes = \"1000 B\", sleep = \"100 us\", iterations = 5 }\n";
    let s = run(&star(job));
    let port = s.ports.iter().find(|p| p.node == "n0").expect("n0's port");
    let step = 2 * (frame_ns(1046) + 1000);
    // Within a call: the next frame leaves a step (2 hops) after the last: idle = step
    // minus the frame's line time and gap. Between calls: the same plus the sleep.
    let within = step - frame_ns(1046) - GAP_NS;
    assert_eq!(port.idle.count, 5 * 3 - 1);
    let total = (5 * 2 * within + 4 * (within + 100_000)) as f64 * 1e-9;
    assert!((port.idle.total_s - total).abs() < 1e-12, "{} vs {total}", port.idle.total_s);
}
