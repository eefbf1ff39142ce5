//! The integration tests across crates (in-process, subprocesses, real peers), one binary: each
//! module below was a test file of its own. Run one with `cargo test -p integration-tests --test
//! it MODULE::` (ARCHITECTURE.md, "Tests").

pub mod common;

pub mod context;
pub mod crash_http;
pub mod drain;
pub mod fleet;
pub mod fleet_faults;
pub mod head_deadline;
pub mod hostile;
pub mod http;
pub mod http_load;
pub mod idp;
pub mod lifecycle;
pub mod linear_time;
pub mod logs_out_of_the_box;
pub mod memory;
pub mod nginx;
pub mod prometheus;
pub mod python_http_interop;
pub mod python_interop;
pub mod redis_cluster;
pub mod redis_sessions;
pub mod redis_streams;
pub mod redis_tasks;
pub mod robustness;
pub mod rolling_restart;
pub mod subscriptions_stdio;
pub mod tools;
pub mod visible_errors_stdio;
