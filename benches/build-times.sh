#!/usr/bin/env bash
# Build times of the tasks server, ours against rmcp's: a clean `cargo build --release` in an
# empty target dir, then an incremental rebuild after changing one string in one tool's body.
# Works on a copy of the committed tree (git archive HEAD), so the checkout is never edited.
# Dependencies must already be downloaded (run benches/run.sh once, or `cargo fetch`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git -C "$root" archive HEAD | tar -x -C "$work"

seconds() { local s; s=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $s" | bc; }

ours() { (cd "$work" && CARGO_TARGET_DIR="$work/target-ours" cargo build --release --offline -p examples --no-default-features --bin tasks); }
theirs() { (cd "$work/benches" && CARGO_TARGET_DIR="$work/target-rmcp" cargo build --release --offline -p rmcp-tasks); }

echo "machine: $(nproc) CPUs, $(uptime)"
clean_ours=$(seconds ours)
clean_rmcp=$(seconds theirs)
# One tool's body: the text of complete_task's not-found error.
sed -i 's/Call list_tasks to see the valid IDs./Call list_tasks to see the IDs./' "$work/examples/tasks.rs"
sed -i 's/Call list_tasks to see the valid IDs./Call list_tasks to see the IDs./' "$work/benches/rmcp-tasks/src/main.rs"
incr_ours=$(seconds ours)
incr_rmcp=$(seconds theirs)
printf '| build | ours (examples/tasks) | rmcp-tasks | ours / rmcp |\n| --- | ---: | ---: | ---: |\n'
printf '| clean release | %.1f s | %.1f s | %.2f |\n' "$clean_ours" "$clean_rmcp" "$(echo "$clean_ours / $clean_rmcp" | bc -l)"
printf '| incremental release, one tool edited | %.1f s | %.1f s | %.2f |\n' "$incr_ours" "$incr_rmcp" "$(echo "$incr_ours / $incr_rmcp" | bc -l)"
