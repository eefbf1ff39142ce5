#!/usr/bin/env bash
# One "server" for the HTTP driver made of N replicas of ours behind Debian's nginx, round-robin,
# no stickiness: the stateless era's scale-out (each 2026-07-28 request stands alone, so any
# replica answers it; nothing is shared). Started by the driver as a peer command:
#
#   benches/replicas.sh N ADDR [SERVER]   # SERVER: the replica binary (default target/release/tasks)
#
# e.g. driver http --peer "3-replicas|stateless|benches/replicas.sh 3 {addr}". nginx listens on
# ADDR and balances over N replicas on free loopback ports. The driver stops its peer with
# SIGKILL, which no trap sees: a watcher process outlives this script and stops the replicas and
# nginx once it is gone. The driver's CPU figure is this script's own (near zero), not the
# fleet's: compare calls/s and latency between fleets, not CPU per call.
set -euo pipefail
n=${1:?usage: replicas.sh N ADDR [SERVER]}
addr=${2:?usage: replicas.sh N ADDR [SERVER]}
root="$(cd "$(dirname "$0")/.." && pwd)"
server=${3:-$root/target/release/tasks}
dir=$(mktemp -d)
chmod 777 "$dir"
# shellcheck source=benches/fleet.sh
. "$root/benches/fleet.sh"

upstreams=""
for k in $(seq "$n"); do
  port=$(free_port)
  "$server" --http "127.0.0.1:$port" 2>/dev/null &
  echo $! >"$dir/replica-$k.pid"
  upstreams+="        server 127.0.0.1:$port;"$'\n'
done
# nginx starts listening once every replica does, so the driver's first request finds them.
for u in $(grep -o '127.0.0.1:[0-9]*' <<<"$upstreams"); do
  listening "${u#*:}" || { echo "replicas.sh: $u did not listen" >&2; exit 1; }
done
start_nginx "$dir" "$addr" "$upstreams"
watch_until_gone "$dir"
wait
