//! `driver complexity`: the complexity battery (BENCHMARKS.md, "Complexity battery"). For each
//! path that reads what a client sends, one request of the shape that path handles worst, at
//! sizes n, 2n, 4n and 8n, against `complexity-server`; each size timed k times, the median kept.
//! The time is the server's CPU time from the request's first byte sent to its answer's last byte
//! read (the process's CPU-time clock, every thread counted), so that other load on the machine
//! does not pass for the path's own cost. A row fails when one doubling of n more than triples the
//! time and the larger time is over the noise floor (that doubling measured again first, its two
//! sizes in turn, up to three times, to tell a burst of other load from the path) and the doubling
//! after it keeps growing (over ×2.5: a doubling followed by ×2 again is a step, a working set that
//! outgrew a cache; the last doubling gets a size 16n to tell), when a request
//! outlives the timeout (wall time), or when an answer is not the expected one (every answer is
//! checked, so that no row passes by timing an error).
//!
//! ```text
//! driver complexity --server benches/target/release/complexity-server [--quick] [--repeat k]
//!                   [--timeout-s 20] [--rows batch,string,...] [--n N]
//! ```
//!
//! Each row gets a server of its own, killed when the row ends, so that a request still running
//! after its timeout cannot slow the next row. `--quick` (CI) takes smaller sizes and k = 3.

mod rows;
mod servers;

use std::time::Duration;

use rows::{Row, rows};
use servers::Server;

use crate::median;

/// A doubling of n may take at most this many times as long...
const MAX_RATIO: f64 = 3.0;
/// ...unless the larger time is under this floor, where the noise of one request is of the order
/// of the time itself.
const FLOOR_MS: f64 = 2.0;

/// What one row measured: the median time of each size, and what stopped it, if anything.
struct Measured {
    n: usize,
    ms: Vec<f64>,
    /// The doublings over the bound taken as steps: index, ratio, and the next doubling's ratio.
    steps: Vec<(usize, f64, f64)>,
    failure: Option<String>,
}

/// The median times of `repeat` requests of each of `sizes`, taken in turn (after one
/// unmeasured request of each, whose answer is checked): a burst of other load hits them alike.
fn time_sizes(
    server: &mut Server,
    row: &Row,
    a: &Args,
    sizes: &[usize],
    repeat: usize,
) -> Result<Vec<f64>, String> {
    let requests: Vec<_> = sizes
        .iter()
        .map(|&n| (n, (row.build)(n, a.quick)))
        .collect();
    let mut times = vec![Vec::with_capacity(repeat); sizes.len()];
    for round in 0..=repeat {
        for ((size, request), times) in requests.iter().zip(&mut times) {
            let (took, answer) = server
                .exchange(request, a.timeout)
                .map_err(|e| format!("n={size}: {e}"))?;
            if round > 0 {
                times.push(took.as_secs_f64() * 1e3);
            } else if let Err(e) = (row.check)(&answer, *size, a.quick) {
                let shown: String = answer.to_string().chars().take(300).collect();
                return Err(format!("n={size}: {e}; got {shown}"));
            }
        }
    }
    Ok(times.into_iter().map(median).collect())
}

/// How many times a doubling over the bound is measured again before it counts: it fails only
/// when every measurement is over. A path that is not linear is over each time (a quadratic one
/// doubles ×4); a burst of other load on a two-core CI machine has pushed a linear row's ×2 to
/// ×3.02 once, after one confirmation.
const CONFIRMATIONS: usize = 3;

/// Whether the doubling from `pair[0]` to `pair[1]` is over the bound.
fn over(pair: &[f64]) -> bool {
    pair[1] / pair[0] > MAX_RATIO && pair[1] > FLOOR_MS
}

/// The doubling after an over-bound one may take at most this many times as long for the first to
/// count as a step rather than growth: a working set that outgrows a cache makes each item dearer
/// by a constant from that size on (one doubling ×3 to ×4, the next ×2 again: CI once read
/// `union-items` ×1.94, ×3.72, ×1.73), while a path that is not linear keeps growing (a quadratic
/// one ×4 at every doubling).
const STEP_NEXT: f64 = 2.5;

/// The first doubling of `ms` over the bound, from index `from` on: its index and its ratio.
fn over_bound(ms: &[f64], from: usize) -> Option<(usize, f64)> {
    ms.windows(2)
        .enumerate()
        .skip(from)
        .find(|(_, pair)| over(pair))
        .map(|(i, _)| (i, ms[i + 1] / ms[i]))
}

/// Measures a row: n, 2n, 4n and 8n. A doubling over the bound is measured again before it
/// counts, its two sizes in turn with three times the repeats, up to `CONFIRMATIONS` times: a
/// path that is not linear is so every time, a burst of other load on the machine seldom is. A
/// doubling still over is a step when the one after it is within `STEP_NEXT` (the last doubling
/// gets one more size, 16n, to tell); otherwise the row fails.
fn measure(row: &Row, a: &Args) -> Measured {
    let n = a.n.unwrap_or(if a.quick { row.n.1 } else { row.n.0 });
    let mut m = Measured {
        n,
        ms: Vec::new(),
        steps: Vec::new(),
        failure: None,
    };
    let run = |m: &mut Measured| -> Result<(), String> {
        let mut server = Server::start(&a.server, row.transport, a.timeout)
            .map_err(|e| format!("the server did not start: {e}"))?;
        // Each size on its own first: a size that outlives the timeout ends the row there.
        for i in 0..4 {
            m.ms.extend(time_sizes(&mut server, row, a, &[n << i], a.repeat)?);
        }
        let mut from = 0;
        while let Some((i, _)) = over_bound(&m.ms, from) {
            for _ in 0..CONFIRMATIONS {
                let again = time_sizes(&mut server, row, a, &[n << i, n << (i + 1)], 3 * a.repeat)?;
                m.ms[i..=i + 1].copy_from_slice(&again);
                if !over(&m.ms[i..=i + 1]) {
                    break;
                }
            }
            from = i + 1;
            if !over(&m.ms[i..=i + 1]) {
                continue;
            }
            // Still over: a step if the next doubling is back near ×2, growth otherwise.
            let next = match m.ms.get(i + 2) {
                Some(&t) => t / m.ms[i + 1],
                None => {
                    let again =
                        time_sizes(&mut server, row, a, &[n << (i + 1), n << (i + 2)], a.repeat)
                            .map_err(|e| {
                                format!(
                                    "×{:.2} from n={} to {}, then {e}",
                                    m.ms[i + 1] / m.ms[i],
                                    n << i,
                                    n << (i + 1)
                                )
                            })?;
                    again[1] / again[0]
                }
            };
            if next > STEP_NEXT {
                return Err(format!(
                    "×{:.2} from n={} to {}, then ×{next:.2}",
                    m.ms[i + 1] / m.ms[i],
                    n << i,
                    n << (i + 1)
                ));
            }
            m.steps.push((i, m.ms[i + 1] / m.ms[i], next));
        }
        Ok(())
    };
    if let Err(e) = run(&mut m) {
        m.failure = Some(e);
    }
    m
}

/// The row's verdict: `near-linear` (with the steps it took, if any), or why it failed.
fn verdict(m: &Measured) -> Result<String, String> {
    if let Some(f) = &m.failure {
        return Err(f.clone());
    }
    let steps: Vec<String> = m
        .steps
        .iter()
        .map(|&(i, ratio, next)| {
            let from = m.n << i;
            format!(
                "a step ×{ratio:.2} from n={from} to {}, then ×{next:.2}",
                2 * from
            )
        })
        .collect();
    Ok(if steps.is_empty() {
        "near-linear".to_owned()
    } else {
        format!("near-linear ({})", steps.join("; "))
    })
}

struct Args {
    server: String,
    quick: bool,
    repeat: usize,
    timeout: Duration,
    rows: Option<Vec<String>>,
    /// A base size for every row run, instead of each row's own.
    n: Option<usize>,
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut it = args;
    let mut a = Args {
        server: String::new(),
        quick: false,
        repeat: 0,
        timeout: Duration::ZERO,
        rows: None,
        n: None,
    };
    while let Some(flag) = it.next() {
        if flag == "--quick" {
            a.quick = true;
            continue;
        }
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|_| format!("{flag} takes a number"))
        };
        match flag.as_str() {
            "--server" => a.server = value.clone(),
            "--repeat" => a.repeat = number()? as usize,
            "--timeout-s" => a.timeout = Duration::from_secs(number()?),
            "--rows" => a.rows = Some(value.split(',').map(str::to_owned).collect()),
            "--n" => a.n = Some(number()? as usize),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if a.server.is_empty() {
        return Err("complexity needs --server <complexity-server>".into());
    }
    if a.repeat == 0 {
        a.repeat = if a.quick { 3 } else { 5 };
    }
    if a.timeout.is_zero() {
        a.timeout = Duration::from_secs(if a.quick { 5 } else { 20 });
    }
    Ok(a)
}

/// `driver complexity ...`: every row, its table, and an error when a row failed.
pub(crate) fn main(args: impl Iterator<Item = String>) -> Result<(), String> {
    let a = parse_args(args)?;
    let all = rows();
    if let Some(unknown) = a
        .rows
        .iter()
        .flatten()
        .find(|name| !all.iter().any(|r| r.name == name.as_str()))
    {
        let names: Vec<&str> = all.iter().map(|r| r.name).collect();
        return Err(format!("no row {unknown:?} (rows: {})", names.join(", ")));
    }
    let rows: Vec<Row> = all
        .into_iter()
        .filter(|r| {
            a.rows
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == r.name))
        })
        .collect();
    println!(
        "The server's CPU time per request, median of {} per size; a doubling may take at most ×{MAX_RATIO} once over {FLOOR_MS} ms.\n",
        a.repeat
    );
    println!("| row | n | t(n) ms | t(2n)/t(n) | t(4n)/t(2n) | t(8n)/t(4n) | t(8n) ms | verdict |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    let mut failed = Vec::new();
    for row in &rows {
        let m = measure(row, &a);
        let cell = |i: usize| m.ms.get(i).map_or("–".to_owned(), |t| format!("{t:.3}"));
        let ratio = |i: usize| match (m.ms.get(i), m.ms.get(i + 1)) {
            (Some(x), Some(y)) => format!("{:.2}", y / x),
            _ => "–".to_owned(),
        };
        let verdict = match verdict(&m) {
            Ok(verdict) => verdict,
            Err(why) => {
                failed.push(row.name);
                format!("FAILED: {why}")
            }
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {verdict} |",
            row.name,
            m.n,
            cell(0),
            ratio(0),
            ratio(1),
            ratio(2),
            cell(3)
        );
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("complexity: {} failed", failed.join(", ")))
    }
}
