//! A client that stops reading its answers gets backpressure: the server holds at most
//! `max_queued_responses` answers unwritten and then stops reading requests, instead of queueing
//! answers without bound. Once the client reads again, every answer arrives.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::prelude::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const REQUESTS: usize = 100_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_stops_the_server_reading() {
    let server = Server::builder("bp", "1")
        .max_queued_responses(16)
        .build()
        .unwrap();
    // A small pipe, as a real one is (64 KiB on Linux): 4 KiB each way.
    let (client, server_side) = tokio::io::duplex(4096);
    let serving = tokio::spawn(async move {
        let (r, w) = tokio::io::split(server_side);
        server.serve_io(r, w).await
    });
    let (from_server, mut to_server) = tokio::io::split(client);
    let sent = Arc::new(AtomicUsize::new(0));
    let sent_by_writer = sent.clone();
    let writer = tokio::spawn(async move {
        for id in 0..REQUESTS {
            // Valid and invalid lines alike are answered, and alike held back.
            let line = if id % 2 == 0 {
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n")
            } else {
                "{not json\n".to_owned()
            };
            to_server.write_all(line.as_bytes()).await.unwrap();
            sent_by_writer.fetch_add(1, Ordering::SeqCst);
        }
        to_server.shutdown().await.unwrap();
    });
    // Nobody reads: the writer must be held back long before it has sent everything.
    tokio::time::sleep(Duration::from_secs(2)).await;
    // What it could send: the 16 queued answers' requests, the ones in flight in the reader and
    // the writer, and what the two 4 KiB pipes and the line reader's buffer hold.
    let held = sent.load(Ordering::SeqCst);
    assert!(
        held < 2_000,
        "the server read {held} requests while none of its answers was read"
    );
    // Reading again releases everything: one answer per line.
    let mut lines = BufReader::new(from_server).lines();
    let mut answers = 0;
    while let Some(line) = lines.next_line().await.unwrap() {
        assert!(line.starts_with("{\"jsonrpc\":\"2.0\""), "{line}");
        answers += 1;
    }
    writer.await.unwrap();
    serving.await.unwrap().unwrap();
    assert_eq!(answers, REQUESTS);
}
