//! A throwaway `redis-server` (Debian's package) on a free loopback port, stopped when dropped,
//! and `redis-cli` to look at what it holds. Without the package a test says why and passes,
//! unless `MCP_INTEROP_REQUIRED` is set ([`crate::python::missing`]).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::HANG;

/// A running `redis-server` with no persistence, in its own temporary directory.
pub struct Redis {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// `redis://127.0.0.1:PORT/0`.
    pub url: String,
    child: Option<Child>,
    dir: PathBuf,
}

fn installed(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/usr/sbin", "/usr/local/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

impl Redis {
    /// Starts one on a free port; `None` (after [`crate::python::missing`]) without the package.
    pub fn start() -> Option<Redis> {
        if installed("redis-server").is_none() || installed("redis-cli").is_none() {
            crate::python::missing("redis-server is not installed (apt-get install redis-server)");
            return None;
        }
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("mcp-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory for redis-server");
        let mut redis = Redis {
            port,
            url: format!("redis://127.0.0.1:{port}/0"),
            child: None,
            dir,
        };
        redis.restart();
        Some(redis)
    }

    /// Starts the server again on the same port (after [`Redis::stop`]); it holds nothing.
    pub fn restart(&mut self) {
        let child = Command::new(installed("redis-server").expect("redis-server"))
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--appendonly", "no", "--dir"])
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start redis-server");
        self.child = Some(child);
        let deadline = Instant::now() + HANG;
        while self.try_cli(&["PING"]).as_deref() != Some("PONG") {
            assert!(Instant::now() < deadline, "redis-server never answered");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the server (its data goes with it).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// What `redis-cli` prints for `args`, trimmed.
    pub fn cli(&self, args: &[&str]) -> String {
        self.try_cli(args).expect("redis-cli answered")
    }

    fn try_cli(&self, args: &[&str]) -> Option<String> {
        let out = Command::new(installed("redis-cli")?)
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(args)
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        (out.status.success() && !text.contains("Could not connect")).then_some(text)
    }

    /// The keys that match `pattern`, sorted.
    pub fn keys(&self, pattern: &str) -> Vec<String> {
        let mut keys: Vec<String> = self
            .cli(&["--scan", "--pattern", pattern])
            .lines()
            .map(str::to_owned)
            .collect();
        keys.sort();
        keys
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
