//! The examples' tests, one binary: each module below was a test file of its own.

mod cli;
mod contracts;
mod python;
mod tasks_stdio;
