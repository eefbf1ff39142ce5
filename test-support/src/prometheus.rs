//! Prometheus' own tools (Debian's `prometheus` package, installed by `.ci/prometheus`): a
//! throwaway `prometheus` on a free loopback port scraping some targets every second, stopped
//! when dropped, and `promtool check metrics` on a scraped text. Without the package a test says
//! why and passes, unless `MCP_INTEROP_REQUIRED` is set ([`crate::python::missing`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::HANG;
use crate::redis::free_port;

fn installed(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/usr/sbin", "/usr/local/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
}

/// `promtool check metrics` on `text` (what a scrape returned): `Ok` with promtool's output
/// (its lint warnings, if any) when it exits 0; `None` (after [`crate::python::missing`])
/// without promtool.
pub fn check_metrics(text: &str) -> Option<Result<String, String>> {
    let Some(promtool) = installed("promtool") else {
        crate::python::missing("promtool is not installed (bash .ci/prometheus)");
        return None;
    };
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start promtool");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(if out.status.success() {
        Ok(said)
    } else {
        Err(said)
    })
}

/// A running `prometheus` scraping its targets every second, its data in a temporary directory.
pub struct Prometheus {
    /// Its HTTP API's base, `http://127.0.0.1:PORT`.
    pub url: String,
    child: Child,
    dir: PathBuf,
}

impl Prometheus {
    /// Starts one scraping `targets` (`HOST:PORT` each, at `/metrics`) every second, and waits
    /// until it is ready; `None` (after [`crate::python::missing`]) without the package.
    pub fn start(targets: &[String]) -> Option<Prometheus> {
        let Some(program) = installed("prometheus") else {
            crate::python::missing("prometheus is not installed (bash .ci/prometheus)");
            return None;
        };
        let port = free_port();
        let dir =
            std::env::temp_dir().join(format!("mcp-prometheus-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory for prometheus");
        let quoted: Vec<String> = targets.iter().map(|t| format!("'{t}'")).collect();
        let config = format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n\
             scrape_configs:\n  - job_name: mcp\n    metrics_path: /metrics\n    \
             static_configs:\n      - targets: [{}]\n",
            quoted.join(", ")
        );
        let config_file = dir.join("prometheus.yml");
        std::fs::write(&config_file, config).unwrap();
        let log = std::fs::File::create(dir.join("prometheus.log")).unwrap();
        let child = Command::new(program)
            .arg(format!("--config.file={}", config_file.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start prometheus");
        let mut prometheus = Prometheus {
            url: format!("http://127.0.0.1:{port}"),
            child,
            dir,
        };
        prometheus.wait_ready(port);
        Some(prometheus)
    }

    fn wait_ready(&mut self, port: u16) {
        let deadline = Instant::now() + HANG;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("prometheus exited ({status}): {}", self.log());
            }
            if ready(port) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "prometheus never ready: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What it logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("prometheus.log")).unwrap_or_default()
    }
}

/// Whether `GET /-/ready` answers 200.
fn ready(port: u16) -> bool {
    use std::io::Read;
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let request = format!("GET /-/ready HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200")
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
