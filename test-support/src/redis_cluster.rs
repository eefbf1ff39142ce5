//! A throwaway Redis Cluster (3 masters + 3 replicas of Debian's `redis-server`, made by
//! `.ci/redis-cluster` in a directory of its own), stopped when dropped, and [`RedisLike`]: what
//! a test body needs of a Redis, one node or a cluster, so that one body runs on both. Without the
//! package a test says why and passes, unless `MCP_INTEROP_REQUIRED` is set
//! ([`crate::python::missing`]).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::redis::Redis;

/// What a test body needs of a Redis: its URL, `redis-cli`, the keys it holds.
pub trait RedisLike: Sync {
    /// The URL the stores take.
    fn url(&self) -> &str;
    /// What `redis-cli` prints for `args`, trimmed (on a cluster, following redirections).
    fn cli(&self, args: &[&str]) -> String;
    /// The keys that match `pattern`, sorted (on a cluster, from every node, once each).
    fn keys(&self, pattern: &str) -> Vec<String>;
    /// Whether it is a cluster (whose keys carry hash tags).
    fn is_cluster(&self) -> bool;
    /// The port of the node holding `key` (on a cluster, the master of its slot now).
    fn port_of(&self, key: &str) -> u16;

    /// The prefix of the task store's keys: `mcp`, hash-tagged on a cluster.
    fn task_prefix(&self) -> &'static str {
        if self.is_cluster() { "{mcp}" } else { "mcp" }
    }

    /// The key of the events of `stream` in `session`; with an empty `stream`, what the keys of
    /// every stream of `session` start with.
    fn events_key(&self, session: &str, stream: &str) -> String {
        if self.is_cluster() && stream.is_empty() {
            format!("mcp:events:{{{session}:")
        } else if self.is_cluster() {
            format!("mcp:events:{{{session}:{stream}}}")
        } else {
            format!("mcp:events:{session}:{stream}")
        }
    }
}

impl<T: RedisLike + ?Sized> RedisLike for &T {
    fn url(&self) -> &str {
        (**self).url()
    }
    fn cli(&self, args: &[&str]) -> String {
        (**self).cli(args)
    }
    fn keys(&self, pattern: &str) -> Vec<String> {
        (**self).keys(pattern)
    }
    fn is_cluster(&self) -> bool {
        (**self).is_cluster()
    }
    fn port_of(&self, key: &str) -> u16 {
        (**self).port_of(key)
    }
}

impl RedisLike for Redis {
    fn url(&self) -> &str {
        &self.url
    }
    fn cli(&self, args: &[&str]) -> String {
        Redis::cli(self, args)
    }
    fn keys(&self, pattern: &str) -> Vec<String> {
        Redis::keys(self, pattern)
    }
    fn is_cluster(&self) -> bool {
        false
    }
    fn port_of(&self, _key: &str) -> u16 {
        self.port
    }
}

/// A running local Redis Cluster: three masters, each with one replica, on loopback ports.
pub struct RedisCluster {
    /// `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3` (the three first masters).
    pub url: String,
    /// The six ports, the three first masters first (as created).
    pub ports: Vec<u16>,
    dir: PathBuf,
}

fn script() -> PathBuf {
    crate::repo().join(".ci/redis-cluster")
}

fn cli_at(port: u16, args: &[&str]) -> Option<String> {
    let out = Command::new("redis-cli")
        .args(["-c", "-h", "127.0.0.1", "-p", &port.to_string()])
        .args(args)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && !text.contains("Could not connect")).then_some(text)
}

/// Clusters made ahead of the tests that will ask for one ([`RedisCluster::start`]).
const AHEAD: usize = 2;

impl RedisCluster {
    /// A cluster of its own, ready (`None`, after [`crate::python::missing`], without the
    /// package). A start takes about 2.7 s, most of it Redis's own waits (a master accepts writes
    /// 2 s after it started), so once a second cluster is asked for, the next ones are made ahead,
    /// in the background, while the callers use theirs: [`AHEAD`] of them, one per test thread of
    /// a default `cargo test` on two cores, so that a later test finds its cluster ready. A run
    /// that asks for one cluster (a filtered run, CI's rolling-restart step) makes no more than
    /// that one: twelve more nodes starting beside the test using the first would only load the
    /// machine. A cluster made ahead that no test takes stops itself when the test process ends
    /// (`REDIS_CLUSTER_OWNER`).
    pub fn start() -> Option<RedisCluster> {
        static MADE_AHEAD: Mutex<VecDeque<JoinHandle<RedisCluster>>> = Mutex::new(VecDeque::new());
        static ASKED: AtomicUsize = AtomicUsize::new(0);
        let installed = |name: &str| {
            ["/usr/bin", "/usr/local/bin"]
                .iter()
                .any(|d| std::path::Path::new(d).join(name).exists())
        };
        if !installed("redis-server") || !installed("redis-cli") {
            crate::python::missing("redis-server is not installed (apt-get install redis-server)");
            return None;
        }
        let mut ahead = MADE_AHEAD.lock().unwrap_or_else(|e| e.into_inner());
        let made = ahead.pop_front();
        let first = ASKED.fetch_add(1, Ordering::Relaxed) == 0;
        while !first && ahead.len() < AHEAD {
            ahead.push_back(std::thread::spawn(Self::start_now));
        }
        drop(ahead);
        Some(
            made.and_then(|started| started.join().ok())
                .unwrap_or_else(Self::start_now),
        )
    }

    /// Runs `.ci/redis-cluster start` in a directory of its own, owned by this process. A start
    /// that fails (the script says why, with its nodes' logs) is tried once more: the ports it
    /// picked are free when picked, not reserved, and another process may bind one before its
    /// node does.
    fn start_now() -> RedisCluster {
        static STARTED: AtomicUsize = AtomicUsize::new(0);
        let attempt = || {
            let n = STARTED.fetch_add(1, Ordering::Relaxed);
            let dir =
                std::env::temp_dir().join(format!("mcp-redis-cluster-{}-{n}", std::process::id()));
            let out = Command::new("bash")
                .arg(script())
                .arg("start")
                .env("REDIS_CLUSTER_DIR", &dir)
                .env("REDIS_CLUSTER_OWNER", std::process::id().to_string())
                .stderr(Stdio::inherit())
                .output()
                .expect("run .ci/redis-cluster");
            out.status.success().then_some((out, dir))
        };
        let (out, dir) = attempt()
            .or_else(|| {
                eprintln!(".ci/redis-cluster failed (above); starting another cluster");
                attempt()
            })
            .expect(".ci/redis-cluster failed twice");
        let url = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let ports = std::fs::read_to_string(dir.join("ports"))
            .expect("the cluster's ports")
            .split_whitespace()
            .map(|p| p.parse().expect("a port"))
            .collect();
        RedisCluster { url, ports, dir }
    }

    /// The ports of the nodes that answer and are masters now.
    pub fn masters(&self) -> Vec<u16> {
        self.ports
            .iter()
            .copied()
            .filter(|p| cli_at(*p, &["ROLE"]).is_some_and(|r| r.starts_with("master")))
            .collect()
    }

    /// The port of the master serving `key`'s slot now (asked of any node that answers).
    pub fn master_of(&self, key: &str) -> u16 {
        self.healthy_master_of(key)
            .unwrap_or_else(|| panic!("no healthy master serves `{key}`"))
    }

    /// The master serving `key`'s slot, unless none does or it is suspected to have failed.
    fn healthy_master_of(&self, key: &str) -> Option<u16> {
        let slot: u16 = self.cli(&["CLUSTER", "KEYSLOT", key]).parse().ok()?;
        let nodes = self.cli(&["CLUSTER", "NODES"]);
        nodes.lines().find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 9 || !fields[2].contains("master") || fields[2].contains("fail") {
                return None;
            }
            let serves = fields[8..].iter().any(|range| {
                let (lo, hi) = range.split_once('-').unwrap_or((range, range));
                matches!((lo.parse::<u16>(), hi.parse::<u16>()),
                    (Ok(lo), Ok(hi)) if (lo..=hi).contains(&slot))
            });
            let addr = fields[1].split('@').next()?;
            serves.then(|| addr.rsplit(':').next()?.parse().ok())?
        })
    }

    /// Kills the node on `port` (`SIGKILL`: what it had not yet sent its replica is lost).
    pub fn kill(&self, port: u16) {
        let pid = std::fs::read_to_string(self.dir.join(port.to_string()).join("redis.pid"))
            .unwrap_or_else(|e| {
                panic!(
                    "the pid file of the node on {port} ({e}); the cluster's ports are {:?}, its \
                     folder {} holds {:?}; its nodes say:\n{}",
                    self.ports,
                    self.dir.display(),
                    std::fs::read_dir(&self.dir)
                        .map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>())
                        .unwrap_or_default(),
                    self.cli(&["CLUSTER", "NODES"])
                )
            });
        let status = Command::new("kill")
            .args(["-9", pid.trim()])
            .status()
            .expect("kill");
        assert!(status.success(), "kill {pid}");
    }

    /// Waits until a node other than `dead` masters `key`'s slot and the cluster says it is ok;
    /// how long that took.
    pub fn await_failover(&self, key: &str, dead: u16) -> Duration {
        let started = Instant::now();
        loop {
            let ok = self.cli(&["CLUSTER", "INFO"]).contains("cluster_state:ok");
            if ok && self.healthy_master_of(key).is_some_and(|m| m != dead) {
                return started.elapsed();
            }
            assert!(
                started.elapsed() < crate::HANG,
                "no replica took over `{key}` from {dead}:\n{}\n{}\n{}",
                self.cli(&["CLUSTER", "NODES"]),
                self.cli(&["CLUSTER", "INFO"]),
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The last lines of every node's log.
    fn logs(&self) -> String {
        self.ports
            .iter()
            .map(|p| {
                let log = std::fs::read_to_string(self.dir.join(p.to_string()).join("redis.log"))
                    .unwrap_or_default();
                let lines: Vec<&str> = log.lines().collect();
                format!(
                    "-- {p}:\n{}",
                    lines[lines.len().saturating_sub(12)..].join("\n")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn alive(&self) -> impl Iterator<Item = u16> + '_ {
        self.ports
            .iter()
            .copied()
            .filter(|p| cli_at(*p, &["PING"]).as_deref() == Some("PONG"))
    }
}

impl RedisLike for RedisCluster {
    fn url(&self) -> &str {
        &self.url
    }

    fn cli(&self, args: &[&str]) -> String {
        self.alive()
            .find_map(|p| cli_at(p, args))
            .expect("a node of the cluster answered")
    }

    fn keys(&self, pattern: &str) -> Vec<String> {
        let mut keys: Vec<String> = self
            .alive()
            .filter_map(|p| cli_at(p, &["--scan", "--pattern", pattern]))
            .flat_map(|out| out.lines().map(str::to_owned).collect::<Vec<_>>())
            .filter(|k| !k.is_empty())
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    fn is_cluster(&self) -> bool {
        true
    }

    fn port_of(&self, key: &str) -> u16 {
        self.master_of(key)
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .arg("stop")
            .env("REDIS_CLUSTER_DIR", &self.dir)
            .stdout(Stdio::null())
            .status();
    }
}
