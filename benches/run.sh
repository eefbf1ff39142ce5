#!/usr/bin/env bash
# Builds every server in release and runs the stdio load benchmark on all of them in one run:
# ours (the `tasks` example), the same contract on rmcp over both of its stdio transports, and
# the floor. Prints a markdown table of medians and the ratios the targets are stated in.
#
#   benches/run.sh                      # N=20000 calls per run, 3 repeats, W=1 and W=32
#   N=5000 REPEAT=1 benches/run.sh      # a quick look
#
# Environment: N, REPEAT, WINDOWS (default 1,32), WORKLOADS (default valid,invalid,list),
# MAIN_TARGET (target dir of the main workspace, default <repo>/target),
# BENCH_TARGET (target dir of this workspace, default benches/target), RAW (a TSV of every run).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
main_target="${MAIN_TARGET:-$root/target}"
bench_target="${BENCH_TARGET:-$here/target}"

echo "building ours (examples/tasks) ..." >&2
# The stdio build of the example (`--no-default-features`: no HTTP stack), as rmcp-tasks is built
# with rmcp's stdio transport only.
(cd "$root" && CARGO_TARGET_DIR="$main_target" cargo build --release --quiet -p examples --no-default-features --bin tasks)
echo "building the driver, the floor and rmcp-tasks ..." >&2
(cd "$here" && CARGO_TARGET_DIR="$bench_target" cargo build --release --quiet)

bin="$bench_target/release"
echo "machine: $(nproc) CPUs, $(uptime)" >&2
# Ours logs at its default level (info) to stderr, which the driver discards, as a client would
# keep it; rmcp's tracing has no subscriber in rmcp-tasks.
exec "$bin/driver" suite \
  --n "${N:-20000}" --repeat "${REPEAT:-3}" \
  --windows "${WINDOWS:-1,32}" --workloads "${WORKLOADS:-valid,invalid,list}" \
  ${RAW:+--raw "$RAW"} \
  --server "ours=$main_target/release/tasks" \
  --server "rmcp-stdio=$bin/rmcp-tasks" \
  --server "rmcp-pipes=$bin/rmcp-tasks pipes" \
  --server "rmcp-pipes-1t=$bin/rmcp-tasks pipes single" \
  --floor "$bin/floor"
