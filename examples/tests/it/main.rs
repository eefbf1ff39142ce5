//! The examples' tests, one binary: each module below was a test file of its own.

pub mod cli;
pub mod contracts;
pub mod python;
pub mod review;
pub mod tasks_stdio;
