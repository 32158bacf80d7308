//! switchyard inside a Rust test: an emulator in-process on a free port with a manual clock, an
//! SQS client of the AWS SDK for Rust pointed at it, and virtual time moved with
//! `Emulator::advance` instead of a sleep. A message sent with a 15-minute delay is not there,
//! then is, without waiting.
//!
//! ```text
//! cargo run --example in_process
//! ```
//! In a test of your own, the same lines go in a `#[tokio::test]` (README, "Rust tests in process").

use aws_sdk_sqs::config::{BehaviorVersion, Credentials, Region};
use std::time::Duration;
use switchyard::{Config, Emulator};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A free port, a manual clock and seed 0: nothing moves until the test says so.
    let emulator = Emulator::start(Config::for_tests()).await?;
    let sqs = sqs_client(emulator.url());

    let queue = sqs.create_queue().queue_name("orders").send().await?;
    let url = queue.queue_url().expect("CreateQueue answers a URL");
    sqs.send_message()
        .queue_url(url)
        .message_body("hello")
        .delay_seconds(900)
        .send()
        .await?;

    let before = sqs.receive_message().queue_url(url).send().await?;
    assert!(
        before.messages().is_empty(),
        "delayed for 900 virtual seconds"
    );

    // What `POST /_switchyard/clock/advance {"seconds": 900}` does: the delay's timer fires, and
    // the advance returns once its work is done.
    let advanced = emulator.advance(Duration::from_secs(900)).await?;
    let now = switchyard::engine::time::format_rfc3339(advanced.now);
    println!("virtual time is now {now}");

    let after = sqs.receive_message().queue_url(url).send().await?;
    let bodies: Vec<_> = after.messages().iter().filter_map(|m| m.body()).collect();
    assert_eq!(bodies, ["hello"]);
    println!("received {bodies:?} after 900 virtual seconds");

    emulator.stop().await?;
    Ok(())
}

/// An SQS client for the emulator at `url`, with any credentials. This crate builds the SDK
/// without its default HTTPS client, so it names a plain HTTP one; with the SDK's default
/// features the `.http_client(...)` line is not needed.
fn sqs_client(url: &str) -> aws_sdk_sqs::Client {
    let config = aws_sdk_sqs::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(url)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "example"))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .build();
    aws_sdk_sqs::Client::from_conf(config)
}
