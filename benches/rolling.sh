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
# gone.
set -euo pipefail
usage="usage: rolling.sh N ADDR SERVER [PAUSE_MS]"
n=${1:?$usage}
addr=${2:?$usage}
server=${3:?$usage}
pause_ms=${4:-0}
log=${ROLLING_LOG:-/dev/null}
nginx=$(command -v nginx || echo /usr/sbin/nginx)
dir=$(mktemp -d)
chmod 777 "$dir"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
listening() {
  for _ in $(seq 400); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.005
  done
  return 1
}
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
            $retry
        }
    }
}
CONF
"$nginx" -c "$dir/nginx.conf" -p "$dir" 2>>"$dir/error.log" &
echo $! >"$dir/nginx.pid.watch"
me=$$
# The watcher: a process of its own, so that it survives this script's SIGKILL.
# (A killed script that nobody reaped yet is a zombie: gone too.)
setsid bash -c "while ps -o stat= -p $me | grep -qv Z; do sleep 0.2; done; kill \$(cat '$dir'/*.pid '$dir/nginx.pid.watch' 2>/dev/null) 2>/dev/null; rm -rf '$dir'" \
  </dev/null >/dev/null 2>&1 &

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
