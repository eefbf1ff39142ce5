//! A stateless deployment behind a real reverse proxy: two `http_replica` processes behind nginx
//! (Debian's package) balancing round-robin, no sticky sessions. Every call must succeed and
//! both replicas must serve some. Skipped with a message when nginx is not installed, unless
//! `MCP_INTEROP_REQUIRED` is set to any non-empty value.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const REPLICA: &str = env!("CARGO_BIN_EXE_http_replica");
use integration_tests::peer::HANG;
const CALLS: usize = 200;

fn nginx() -> Option<PathBuf> {
    let candidates = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"];
    candidates.iter().map(PathBuf::from).find(|p| p.exists())
}

/// Starts a replica on a free port; returns it and its address.
async fn replica() -> (Child, String) {
    let mut child = Command::new(REPLICA)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start http_replica");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = tokio::time::timeout(HANG, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("listening on http://") {
                return url.trim_end_matches("/mcp").to_owned();
            }
        }
        panic!("http_replica exited before listening");
    })
    .await
    .expect("http_replica never listened");
    // Keep draining its stderr so that it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, addr)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn config(dir: &Path, port: u16, upstreams: &[String]) -> String {
    let d = dir.display();
    let servers: String = upstreams
        .iter()
        .map(|u| format!("        server {u};\n"))
        .collect();
    format!(
        r#"daemon off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
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
        }}
    }}
}}
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_stateless_replicas_behind_nginx_share_the_calls() {
    let Some(nginx) = nginx() else {
        return integration_tests::python::missing(
            "nginx is not installed (apt-get install nginx)",
        );
    };
    let (_a, addr_a) = replica().await;
    let (_b, addr_b) = replica().await;

    let dir = std::env::temp_dir().join(format!("mcp-nginx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // nginx workers may run as an unprivileged user: let them use the temp directories.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let port = free_port();
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, config(&dir, port, &[addr_a.clone(), addr_b.clone()])).unwrap();
    let mut proxy = Command::new(&nginx)
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(&conf)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("start nginx");

    let url = format!("http://127.0.0.1:{port}/mcp");
    let http = reqwest::Client::new();
    let call = |id: usize, name: &str, arguments: Value| {
        http.post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .body(
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                    "name": name, "arguments": arguments,
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}
                    }
                }})
                .to_string(),
            )
            .send()
    };
    // Wait for nginx to accept connections.
    let deadline = tokio::time::Instant::now() + HANG;
    while call(0, "add", json!({"a": 0, "b": 0})).await.is_err() {
        if let Ok(Some(status)) = proxy.try_wait() {
            let log = std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
            panic!("nginx exited ({status}): {log}");
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "nginx never accepted connections"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let mut served: BTreeMap<u64, usize> = BTreeMap::new();
    let mut errors = Vec::new();
    for id in 1..=CALLS {
        let outcome = async {
            let r = call(id, "replica", json!({}))
                .await
                .map_err(|e| e.to_string())?;
            if !r.status().is_success() {
                return Err(format!("status {}", r.status()));
            }
            let v: Value = serde_json::from_str(&r.text().await.map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
            if v["id"] != id {
                return Err(format!("answer to another request: {v}"));
            }
            v["result"]["structuredContent"]["result"]
                .as_u64()
                .ok_or_else(|| format!("no process id in {v}"))
        }
        .await;
        match outcome {
            Ok(pid) => *served.entry(pid).or_default() += 1,
            Err(e) => errors.push(format!("call {id}: {e}")),
        }
    }
    let _ = proxy.kill().await;
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "nginx round-robin over {addr_a} and {addr_b}: {CALLS} calls, {} errors, calls per replica process: {served:?}",
        errors.len()
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(served.len(), 2, "both replicas serve calls: {served:?}");
    assert!(served.values().all(|&n| n > 0));
    assert_eq!(served.values().sum::<usize>(), CALLS);
}
