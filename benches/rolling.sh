#!/usr/bin/env bash
# One "server" for the HTTP driver made of N replicas of ours behind Debian's nginx, round-robin,
# retrying on the next replica what one refused with 503 or could not take (docs/deployment.md's
# settings: proxy_next_upstream error timeout http_503 non_idempotent), and, with PAUSE_MS > 0,
# restarted one after the other for as long as it runs: SIGTERM to one replica, wait for its
# drain and its exit, start it again on its port, wait until it listens, PAUSE_MS, the next one.
# Started by the driver as a peer command (benches/rolling-bench.sh runs it):
#
#   benches/rolling.sh N ADDR SERVER [PAUSE_MS]   # PAUSE_MS 0 (default): no restart
#
# ROLLING_LOG, when set, is a file that gets one line per restart: the replica, its exit status,
# the drain (SIGTERM to exit) and the time until it listened again, in ms. NGINX_RETRY=0 leaves
# nginx's defaults (no retry of a POST, no http_503): what the retry settings buy. The driver
# stops its peer with SIGKILL, which no trap sees: a watcher process outlives this script and stops
# the replicas (their pids in pid files, as they change with each restart) and nginx once it is
# gone (benches/fleet.sh).
set -euo pipefail
usage="usage: rolling.sh N ADDR SERVER [PAUSE_MS]"
n=${1:?$usage}
addr=${2:?$usage}
server=${3:?$usage}
pause_ms=${4:-0}
log=${ROLLING_LOG:-/dev/null}
dir=$(mktemp -d)
chmod 777 "$dir"
# shellcheck source=benches/fleet.sh
. "$(dirname "$0")/fleet.sh"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
start() { # replica k on port p
  "$server" --http "127.0.0.1:$2" --drain-timeout 10 2>/dev/null &
  echo $! >"$dir/replica-$1.pid"
}

ports=()
upstreams=""
for k in $(seq 0 $((n - 1))); do
  port=$(free_port)
  ports+=("$port")
  start "$k" "$port"
  upstreams+="        server 127.0.0.1:$port max_fails=0;"$'\n'
done
for p in "${ports[@]}"; do listening "$p"; done
retry="proxy_next_upstream error timeout http_503 non_idempotent;
            proxy_next_upstream_tries 3;"
[ "${NGINX_RETRY:-1}" = 0 ] && retry=""
start_nginx "$dir" "$addr" "$upstreams" "$retry"
watch_until_gone "$dir"

if [ "$pause_ms" = 0 ]; then
  wait
  exit 0
fi
k=0
while true; do
  sleep "$(awk "BEGIN { print $pause_ms / 1000 }")"
  pid=$(cat "$dir/replica-$k.pid")
  t0=$(now_ms)
  kill -TERM "$pid"
  code=0
  wait "$pid" || code=$?
  t1=$(now_ms)
  start "$k" "${ports[$k]}"
  listening "${ports[$k]}" || echo "replica $k never listened again" >>"$log"
  t2=$(now_ms)
  echo "replica $k exit $code drain_ms $((t1 - t0)) back_ms $((t2 - t1))" >>"$log"
  k=$(((k + 1) % n))
done
