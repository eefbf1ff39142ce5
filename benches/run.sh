#!/usr/bin/env bash
# Builds every server in release and runs the load benchmarks on all of them in one run: over
# stdio, ours (the `tasks` example, stdio-only build), the same contract on rmcp over both of its
# stdio transports, and the floor; over Streamable HTTP, ours (`tasks --http`), rmcp's
# StreamableHttpService in axum (its defaults, and stateless with JSON responses), the official
# Python SDK (stateless JSON, and with sessions), the HTTP floor (axum) and `bare` (the floor's
# answers from hyper alone, a bound under the floor); the `sse` workload (a call
# that reports progress, answered as an event stream) runs each peer's `step` tool instead. Prints markdown tables of
# medians and the ratios the targets are stated in, and writes every run as JSON for the charts
# (`benches/charts.py`).
#
#   benches/run.sh                          # both transports, 3 repeats
#   TRANSPORTS=http REPEAT=1 benches/run.sh # a quick look at HTTP alone
#
# Environment: TRANSPORTS (stdio,http), N (stdio calls per run, 20000), REPEAT (3),
# WINDOWS (1,32,256), WORKLOADS (stdio: valid,invalid,list), HTTP_WORKLOADS
# (valid,invalid,list,session,sse), MEASURE_MS (2000), WARMUP_MS (500), SESSIONS (10000),
# OUT (directory for stdio.json and http.json, default benches/results), MAIN_TARGET,
# BENCH_TARGET, LISTCACHE (a stdio build with the once-encoded tools/list page, measured beside
# ours when set), MCP_REFERENCE_SERVERS (the Python reference servers).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
main_target="${MAIN_TARGET:-$root/target}"
bench_target="${BENCH_TARGET:-$here/target}"
out="${OUT:-$here/results}"
transports="${TRANSPORTS:-stdio,http}"
mkdir -p "$out"

echo "building ours (examples/tasks), stdio-only and with HTTP ..." >&2
# The stdio build (`--no-default-features`: no HTTP stack), as rmcp-tasks is built with rmcp's
# stdio transport only over stdio; both builds write target/release/tasks, so each is copied.
(cd "$root" && CARGO_TARGET_DIR="$main_target" cargo build --release --quiet -p examples --no-default-features --bin tasks)
cp "$main_target/release/tasks" "$main_target/release/tasks-stdio"
(cd "$root" && CARGO_TARGET_DIR="$main_target" cargo build --release --quiet -p examples --bin tasks)
cp "$main_target/release/tasks" "$main_target/release/tasks-http"
echo "building the driver, the floor and rmcp-tasks ..." >&2
(cd "$here" && CARGO_TARGET_DIR="$bench_target" cargo build --release --quiet)
if [[ "$transports" == *http* ]]; then
  bash "$root/.ci/python-venv" >&2
fi

bin="$bench_target/release"
echo "machine: $(nproc) CPUs, $(uptime)" >&2
if [[ "$transports" == *stdio* ]]; then
  # Ours logs at its default level (info) to stderr, which the driver discards, as a client would
  # keep it; rmcp's tracing has no subscriber in rmcp-tasks.
  "$bin/driver" suite \
    --n "${N:-20000}" --repeat "${REPEAT:-3}" \
    --windows "${WINDOWS:-1,32,256}" --workloads "${WORKLOADS:-valid,invalid,list}" \
    --json "$out/stdio.json" \
    --server "ours=$main_target/release/tasks-stdio" \
    ${LISTCACHE:+--server "ours-listcache=$LISTCACHE"} \
    --server "rmcp-stdio=$bin/rmcp-tasks" \
    --server "rmcp-pipes=$bin/rmcp-tasks pipes" \
    --server "rmcp-pipes-1t=$bin/rmcp-tasks pipes single" \
    --floor "$bin/floor"
fi
if [[ "$transports" == *http* ]]; then
  python="$root/.venv/bin/python $here/python/tasks_http.py {addr}"
  echo "machine: $(nproc) CPUs, $(uptime)" >&2
  "$bin/driver" http \
    --repeat "${REPEAT:-3}" --windows "${WINDOWS:-1,32,256}" \
    --workloads "${HTTP_WORKLOADS:-valid,invalid,list,session,sse}" \
    --measure-ms "${MEASURE_MS:-2000}" --warmup-ms "${WARMUP_MS:-500}" \
    --sessions "${SESSIONS:-10000}" --json "$out/http.json" \
    --peer "ours|stateless,session|$main_target/release/tasks-http --http {addr}" \
    --peer "rmcp-stateful|stateless,session|$bin/rmcp-tasks http {addr}" \
    --peer "rmcp-json|stateless|$bin/rmcp-tasks http json {addr}" \
    --peer "python-json|stateless|$python" \
    --peer "python-sessions|session|$python sessions" \
    --peer "ours|sse|$bin/ours-progress --http {addr}" \
    --peer "rmcp-stateful|sse|$bin/rmcp-tasks http progress {addr}" \
    --peer "rmcp-json|sse|$bin/rmcp-tasks http json progress {addr}" \
    --peer "python-sse|sse|$python progress" \
    --peer "floor|stateless,session,sse|$bin/floor http {addr}" \
    --peer "bare|stateless,session,sse|$bin/floor bare {addr}"
fi
