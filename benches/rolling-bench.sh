#!/usr/bin/env bash
# What a rolling restart does to the calls under load: the HTTP driver against three replicas of
# the `tasks` example behind nginx with the retry settings of docs/deployment.md
# (`benches/rolling.sh`), once left alone (`steady`) and once restarted one replica after the
# other all along (`rolling`: SIGTERM, drain, exit, start again, PAUSE_MS, the next one), both in
# the same run, alternating within each repeat. 2026-07-28 `tools/call add_task` (valid), W
# clients, --count-failures: a failed call is counted, not the end of the run.
#
#   cargo build --release --workspace --bin tasks && (cd benches && cargo build --release --locked -p driver)
#   benches/rolling-bench.sh           # 3 repeats of 4 s, 32 clients, a restart every 300 ms
#   benches/rolling-bench.sh --quick   # 1 repeat of 1.5 s: a check that it runs and fails no call
#
# Settings from the environment: REPEAT, MEASURE_MS, WINDOW, PAUSE_MS, NGINX_RETRY (0: nginx's
# defaults, no retry). Prints the machine, the settings, the driver's rows, then per fleet the
# medians of p50/p99/p999 and calls/s, the failed calls of all repeats, and the restarts made
# (each replica's exit status and drain time). Exits 1 if a call failed with the retry settings,
# a replica exited other than 0, or the rolling fleet restarted nothing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
repeat=${REPEAT:-3}
measure=${MEASURE_MS:-4000}
window=${WINDOW:-32}
pause=${PAUSE_MS:-300}
if [ "${1:-}" = --quick ]; then
  repeat=1
  measure=1500
fi
target=${CARGO_TARGET_DIR:-target}
driver=${DRIVER:-${CARGO_TARGET_DIR:-benches/target}/release/driver}
server="$target/release/tasks"
for bin in "$driver" "$server"; do
  [ -x "$bin" ] || { echo "missing $bin (see the build line at the top of $0)" >&2; exit 2; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export ROLLING_LOG="$out/restarts.log"
: >"$ROLLING_LOG"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "settings: 3 replicas of tasks --http --drain-timeout 10 behind nginx (retry: ${NGINX_RETRY:-1}), valid workload, $window clients, $repeat repeats of $measure ms after 500 ms of warm-up, a restart every $pause ms in the rolling fleet"
"$driver" http --count-failures --workloads valid --windows "$window" --repeat "$repeat" \
  --warmup-ms 500 --measure-ms "$measure" --sessions 0 --json "$out/runs.json" \
  --peer "steady|stateless|benches/rolling.sh 3 {addr} $server 0" \
  --peer "rolling|stateless|benches/rolling.sh 3 {addr} $server $pause" >"$out/driver.txt" 2>"$out/runs.txt" ||
  { cat "$out/runs.txt" >&2; exit 1; }
echo
echo "the driver's runs (| workload | W | fleet | calls/s | p50 µs | p99 µs | p999 µs | CPU | RSS | rejected | bytes | load |):"
cat "$out/runs.txt"

python3 - "$out/runs.json" "$ROLLING_LOG" "${NGINX_RETRY:-1}" <<'PY'
import json, statistics, sys
runs = json.load(open(sys.argv[1]))
restarts = [line.split() for line in open(sys.argv[2]) if line.strip()]
retry = sys.argv[3] != "0"
print()
print("| fleet | repeats | calls/s | p50 µs | p99 µs | p999 µs | failed calls (all repeats) |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
failed = {}
for fleet in ("steady", "rolling"):
    rs = [r for r in runs if r["server"] == fleet]
    m = lambda k: statistics.median(r[k] for r in rs)
    failed[fleet] = int(sum(r["failed"] for r in rs))
    print(f"| {fleet} | {len(rs)} | {m('calls_per_s'):,.0f} | {m('p50_us'):,.0f} | {m('p99_us'):,.0f} | "
          f"{m('p999_us'):,.0f} | {failed[fleet]} |")
broken = [r for r in restarts if len(r) < 7 or r[3] != "0"]
drains = sorted(int(r[5]) for r in restarts if len(r) >= 7)
backs = sorted(int(r[7]) for r in restarts if len(r) >= 8)
print()
print(f"restarts made by the rolling fleet (warm-up and measure, all repeats): {len(restarts)}, "
      f"exit status other than 0: {len(broken)}; drain (SIGTERM to exit) median {statistics.median(drains) if drains else '-'} ms, "
      f"max {max(drains) if drains else '-'} ms; listening again after median {statistics.median(backs) if backs else '-'} ms")
bad = []
if retry and sum(failed.values()):
    bad.append(f"{sum(failed.values())} calls failed")
if broken:
    bad.append(f"replicas that did not exit 0: {broken[:3]}")
if not restarts:
    bad.append("the rolling fleet restarted nothing")
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
PY
