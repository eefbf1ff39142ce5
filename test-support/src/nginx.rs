//! Debian's nginx as a round-robin reverse proxy (no stickiness) in front of MCP replicas, on a
//! free loopback port, stopped when dropped; and the replicas themselves, child processes that
//! print `listening on http://ADDR/mcp`. Its access log names the upstream of every request, so
//! a test can count what each replica served.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::HANG;
use crate::redis::free_port;

/// Starts `bin` with `args` (which make it serve HTTP on a free port) and waits for its
/// `listening on http://ADDR/mcp` line; the child (killed when dropped) and `ADDR`.
pub async fn spawn_replica(bin: &str, args: &[&str]) -> (Child, String) {
    let mut child = Command::new(bin)
        .args(args)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("start {bin}: {e}"));
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = tokio::time::timeout(HANG, async {
        // What it said before it listened: the reason, if it exits instead.
        let mut said = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("listening on http://") {
                return url.trim_end_matches("/mcp").to_owned();
            }
            said.push(line);
        }
        panic!(
            "{bin} {args:?} exited before listening:\n{}",
            said.join("\n")
        );
    })
    .await
    .unwrap_or_else(|_| panic!("{bin} never listened"));
    // Keep draining its stderr so that it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, addr)
}

/// nginx in front of some upstreams.
pub struct Nginx {
    /// The proxied MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    program: PathBuf,
    dir: PathBuf,
    child: Child,
}

fn installed() -> Option<PathBuf> {
    let candidates = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"];
    candidates.iter().map(PathBuf::from).find(|p| p.exists())
}

fn config(dir: &Path, port: u16, upstreams: &[String], retry: bool) -> String {
    let d = dir.display();
    let extra = if retry {
        "            proxy_next_upstream error timeout http_503 non_idempotent;\n            \
         proxy_next_upstream_tries 3;\n"
    } else {
        ""
    };
    let servers: String = upstreams
        .iter()
        // Retrying: each request goes on to the next replica, and none is ever marked down (a
        // replica restarting comes back at once).
        .map(|u| {
            format!(
                "        server {u}{};\n",
                if retry { " max_fails=0" } else { "" }
            )
        })
        .collect();
    format!(
        r#"daemon off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 256; }}
http {{
    log_format upstream '$request_method|$upstream_addr|$status|$msec|$request_time|$http_last_event_id|$sent_http_content_type';
    access_log {d}/access.log upstream;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    upstream mcp_replicas {{
{servers}        keepalive 8;
    }}
    server {{
        listen 127.0.0.1:{port};
        location /mcp {{
            proxy_pass http://mcp_replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_buffering off;
            proxy_read_timeout 1h;
{extra}        }}
    }}
}}
"#
    )
}

impl Nginx {
    /// Starts nginx balancing round-robin over `upstreams` (`HOST:PORT` each) and waits until it
    /// accepts connections; `None` (after [`crate::python::missing`]) when it is not installed.
    pub async fn start(upstreams: &[String]) -> Option<Nginx> {
        Self::start_with(upstreams, false).await
    }

    /// [`Nginx::start`], retrying on the next upstream what one refused with `503` (a draining
    /// replica refuses before any work, so a `POST` is safe to retry): the settings
    /// docs/deployment.md gives.
    pub async fn start_retrying(upstreams: &[String]) -> Option<Nginx> {
        Self::start_with(upstreams, true).await
    }

    async fn start_with(upstreams: &[String], retry: bool) -> Option<Nginx> {
        let Some(nginx) = installed() else {
            crate::python::missing("nginx is not installed (apt-get install nginx)");
            return None;
        };
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("mcp-nginx-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // nginx workers may run as an unprivileged user: let them use the temp directories.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        }
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, config(&dir, port, upstreams, retry)).unwrap();
        let mut child = Command::new(&nginx)
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("start nginx");
        let deadline = tokio::time::Instant::now() + HANG;
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            if let Ok(Some(status)) = child.try_wait() {
                let log = std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
                panic!("nginx exited ({status}): {log}");
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "nginx never accepted connections"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Some(Nginx {
            url: format!("http://127.0.0.1:{port}/mcp"),
            program: nginx,
            dir,
            child,
        })
    }

    /// How many requests of `method` each upstream answered, from the access log.
    pub fn served(&self, method: &str) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for entry in self.log().into_iter().filter(|e| e.method == method) {
            *counts.entry(entry.upstream).or_default() += 1;
        }
        counts
    }

    /// Each `GET` that resumed a request's stream (`Last-Event-ID: r…`), with the upstream that
    /// wrote the stream: the one that answered the last `POST` with an event stream that began
    /// before the `GET` did (exact for a client with one request in flight at a time).
    pub fn resumptions(&self) -> Vec<Resumption> {
        let log = self.log();
        let streams: Vec<&Entry> = log
            .iter()
            .filter(|e| e.method == "POST" && e.content_type.starts_with("text/event-stream"))
            .collect();
        log.iter()
            .filter(|e| e.method == "GET" && e.last_event_id.starts_with('r'))
            .map(|get| Resumption {
                writer: streams
                    .iter()
                    .filter(|post| post.began <= get.began)
                    .max_by(|x, y| x.began.total_cmp(&y.began))
                    .map(|post| post.upstream.clone()),
                resumer: get.upstream.clone(),
                status: get.status,
                last_event_id: get.last_event_id.clone(),
            })
            .collect()
    }

    /// The `Last-Event-ID` and status of every `GET` that carried one (a stream resumed: `r…` a
    /// request's stream, `g…` a session's `GET` stream), in the order nginx logged them.
    pub fn resumed_streams(&self) -> Vec<(String, u16)> {
        self.log()
            .into_iter()
            .filter(|e| e.method == "GET" && !e.last_event_id.is_empty())
            .map(|e| (e.last_event_id, e.status))
            .collect()
    }

    fn log(&self) -> Vec<Entry> {
        let log = std::fs::read_to_string(self.dir.join("access.log")).unwrap_or_default();
        log.lines().filter_map(Entry::parse).collect()
    }
}

/// A `GET` that resumed a request's stream, from nginx's access log.
#[derive(Debug, Clone)]
pub struct Resumption {
    /// The upstream that wrote the stream, when the log shows it.
    pub writer: Option<String>,
    /// The upstream that served the `GET`.
    pub resumer: String,
    /// The `GET`'s status.
    pub status: u16,
    /// The `Last-Event-ID` it sent.
    pub last_event_id: String,
}

/// One line of the access log.
struct Entry {
    method: String,
    /// The upstream that answered (the last one tried).
    upstream: String,
    status: u16,
    /// When the request began, in seconds since the Unix epoch.
    began: f64,
    last_event_id: String,
    content_type: String,
}

impl Entry {
    fn parse(line: &str) -> Option<Entry> {
        let fields: Vec<&str> = line.split('|').collect();
        let [method, upstream, status, msec, time, last, content_type] = fields.as_slice() else {
            return None;
        };
        // A request retried on another upstream lists each one tried: "a, b".
        let upstream = upstream.rsplit(", ").next()?.trim();
        Some(Entry {
            method: (*method).to_owned(),
            upstream: upstream.to_owned(),
            status: status.parse().ok()?,
            began: msec.parse::<f64>().ok()? - time.parse::<f64>().ok()?,
            last_event_id: last.trim_matches('-').to_owned(),
            content_type: (*content_type).to_owned(),
        })
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // A SIGKILL reaches the master alone: its worker would live on, still listening on the
        // port. nginx's fast shutdown (`-s stop`, SIGTERM through the pid file) stops both;
        // SIGKILL only if the master has not exited after that.
        let stop = std::process::Command::new(&self.program)
            .arg("-p")
            .arg(&self.dir)
            .arg("-c")
            .arg(self.dir.join("nginx.conf"))
            .args(["-s", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while stop.as_ref().is_ok_and(|s| s.success())
            && matches!(self.child.try_wait(), Ok(None))
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
