//! mcp-contract's integration tests, one binary (ARCHITECTURE.md, "Tests").

pub mod contract_cli;
