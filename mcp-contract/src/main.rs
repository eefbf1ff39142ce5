//! `mcp-contract`: snapshots an MCP server's published contract and classifies the changes
//! between two snapshots, for a CI gate.
//!
//! ```text
//! mcp-contract snapshot [-o FILE] [--stateless] -- CMD ARGS…   a stdio server, spawned
//! mcp-contract snapshot [-o FILE] [--stateless] --url URL      a Streamable HTTP endpoint
//! mcp-contract diff [--format text|json|markdown] [--allow RULE]… OLD NEW
//! ```
//!
//! Exit codes: 0 nothing breaks, 1 something breaks, 3 nothing breaks but something is unknown,
//! 2 a usage or input error (clap's own usage errors included).

mod http;

use std::path::PathBuf;
use std::process::{ExitCode, Stdio};

use clap::{Parser, Subcommand, ValueEnum};
use mcp_runtime::contract::{self, Snapshot};
use mcp_runtime::{Client, ClientBuilder};

/// Snapshot an MCP server's published contract, and classify the changes between two
/// snapshots: breaking, compatible, unknown or info (docs/contract-evolution.md).
#[derive(Parser)]
#[command(name = "mcp-contract", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Connect to a server and write its contract snapshot (JSON) to stdout or a file.
    Snapshot {
        /// Write the snapshot here instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The server's Streamable HTTP endpoint (instead of a command).
        #[arg(long, conflicts_with = "command")]
        url: Option<String>,
        /// Speak the stateless 2026-07-28 era instead of the `initialize` handshake.
        #[arg(long)]
        stateless: bool,
        /// The handshake's protocol version (default: the latest the runtime speaks).
        #[arg(long, conflicts_with = "stateless")]
        protocol: Option<String>,
        /// The stdio server to spawn, after `--`.
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Compare two snapshots (or raw `tools/list` results) and classify every change.
    Diff {
        /// The published contract.
        old: PathBuf,
        /// The candidate.
        new: PathBuf,
        /// How to print the changes.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// A rule id whose changes are accepted (reported as info), e.g.
        /// `input.additional-properties-closed`; repeatable.
        #[arg(long = "allow", value_name = "RULE")]
        allow: Vec<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
    Markdown,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(format!("cannot start the runtime: {e}")),
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => ExitCode::from(code),
        Err(e) => fail(e),
    }
}

fn fail(message: String) -> ExitCode {
    eprintln!("mcp-contract: {message}");
    ExitCode::from(2)
}

async fn run(cli: Cli) -> Result<u8, String> {
    match cli.command {
        Command::Snapshot {
            output,
            url,
            stateless,
            protocol,
            command,
        } => {
            let mut builder =
                Client::builder().client_info("mcp-contract", env!("CARGO_PKG_VERSION"));
            if stateless {
                builder = builder.stateless();
            } else if let Some(v) = protocol {
                builder = builder.handshake(v);
            }
            let snapshot = match (url, command.as_slice()) {
                (Some(url), []) => {
                    let client = http::connect(builder, &url).await?;
                    let s = Snapshot::from_client(&client)
                        .await
                        .map_err(|e| e.to_string());
                    client.close().await;
                    s?
                }
                (None, [program, args @ ..]) => stdio(builder, program, args).await?,
                _ => return Err("snapshot needs either --url URL or -- CMD ARGS…".into()),
            };
            let text = snapshot.to_pretty();
            match output {
                Some(path) => {
                    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?
                }
                None => print!("{text}"),
            }
            Ok(0)
        }
        Command::Diff {
            old,
            new,
            format,
            allow,
        } => {
            let read = |path: &PathBuf| -> Result<Snapshot, String> {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                Snapshot::read(&text).map_err(|e| format!("{}: {e}", path.display()))
            };
            let mut report = contract::diff(&read(&old)?, &read(&new)?);
            report.allow(&allow);
            match format {
                Format::Text => print!("{}", report.to_text()),
                Format::Markdown => print!("{}", report.to_markdown()),
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&report.to_json()).unwrap_or_default()
                ),
            }
            Ok(report.exit_code() as u8)
        }
    }
}

/// Spawns `program` and takes the snapshot over its stdin and stdout (its stderr passes through).
async fn stdio(builder: ClientBuilder, program: &str, args: &[String]) -> Result<Snapshot, String> {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err("the child's pipes are missing".into());
    };
    let client = builder
        .over_io(stdout, stdin)
        .await
        .map_err(|e| format!("{program}: {e}"))?;
    let snapshot = Snapshot::from_client(&client)
        .await
        .map_err(|e| format!("{program}: {e}"));
    client.close().await;
    let waited = tokio::time::timeout(std::time::Duration::from_secs(5), child.wait()).await;
    if waited.is_err() {
        let _ = child.kill().await;
    }
    snapshot
}
