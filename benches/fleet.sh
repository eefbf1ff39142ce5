# What benches/replicas.sh and benches/rolling.sh share, sourced by both: a free loopback port,
# waiting until a port listens, nginx round-robin in front of the replicas, and the watcher that
# stops them all once the script is gone. Each script keeps its replicas' pids in $dir/*.pid.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# listening PORT: true once 127.0.0.1:PORT accepts a connection, false after 5 s.
listening() {
  for _ in $(seq 1000); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.005
  done
  return 1
}

# start_nginx DIR ADDR UPSTREAMS [LOCATION]: Debian's nginx in the foreground (in the background
# of the script) on ADDR, balancing over UPSTREAMS (`server` lines) with LOCATION's extra
# directives; its pid in DIR/nginx.pid.watch.
start_nginx() {
  local dir=$1 addr=$2 upstreams=$3 location=${4:-}
  local nginx
  nginx=$(command -v nginx || echo /usr/sbin/nginx)
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
            $location
        }
    }
}
CONF
  "$nginx" -c "$dir/nginx.conf" -p "$dir" 2>>"$dir/error.log" &
  echo $! >"$dir/nginx.pid.watch"
}

# watch_until_gone DIR: the driver stops its peer with SIGKILL, which no trap sees; this watcher,
# a process of its own, outlives the script and then stops every process whose pid is in DIR (the
# replicas' pid files change with each restart) and removes DIR. (A killed script that nobody
# reaped yet is a zombie: gone too.)
watch_until_gone() {
  local me=$$
  setsid bash -c "while ps -o stat= -p $me | grep -qv Z; do sleep 0.2; done; kill \$(cat '$1'/*.pid '$1/nginx.pid.watch' 2>/dev/null) 2>/dev/null; rm -rf '$1'" \
    </dev/null >/dev/null 2>&1 &
}
