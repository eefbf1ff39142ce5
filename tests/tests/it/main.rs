//! The integration tests across crates (in-process, subprocesses, real peers), one binary: each
//! module below was a test file of its own. Run one with `cargo test -p integration-tests --test
//! it MODULE::` (ARCHITECTURE.md, "Tests").

mod common;

mod context;
mod crash_http;
mod fleet;
mod fleet_faults;
mod head_deadline;
mod hostile;
mod http;
mod http_load;
mod lifecycle;
mod linear_time;
mod logs_out_of_the_box;
mod memory;
mod nginx;
mod python_http_interop;
mod python_interop;
mod redis_sessions;
mod redis_streams;
mod redis_tasks;
mod robustness;
mod subscriptions_stdio;
mod tools;
