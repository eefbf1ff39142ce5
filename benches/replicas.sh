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
nginx=$(command -v nginx || echo /usr/sbin/nginx)
dir=$(mktemp -d)
chmod 777 "$dir"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pids=()
upstreams=""
for _ in $(seq "$n"); do
  port=$(free_port)
  "$server" --http "127.0.0.1:$port" 2>/dev/null &
  pids+=($!)
  upstreams+="        server 127.0.0.1:$port;"$'\n'
done
# nginx starts listening once every replica does, so the driver's first request finds them.
for u in $(grep -o '127.0.0.1:[0-9]*' <<<"$upstreams"); do
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/${u%:*}/${u#*:}") 2>/dev/null && break
    sleep 0.05
  done
done
cat >"$dir/nginx.conf" <<CONF
daemon off;
worker_processes ${NGINX_WORKERS:-1};
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    upstream mcp_replicas {
$upstreams        keepalive 64;
    }
    # The driver keeps each connection for the whole run: nginx must not close it after its
    # default 1,000 requests.
    keepalive_requests 100000000;
    keepalive_timeout 1h;
    server {
        listen $addr;
        location /mcp {
            proxy_pass http://mcp_replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_buffering off;
        }
    }
}
CONF
"$nginx" -c "$dir/nginx.conf" -p "$dir" 2>>"$dir/error.log" &
pids+=($!)
me=$$
# The watcher: a process of its own, so that it survives this script's SIGKILL.
# (A killed script that nobody reaped yet is a zombie: gone too.)
setsid bash -c "while ps -o stat= -p $me | grep -qv Z; do sleep 0.2; done; kill ${pids[*]} 2>/dev/null; rm -rf '$dir'" \
  </dev/null >/dev/null 2>&1 &
wait
