//! Operations as the runtime runs them: most are one synchronous call under the lock
//! ([`State::call`]); the few that wait or need I/O are driven from here, their waiting and I/O
//! outside the lock: ReceiveMessage's long poll, the signatures of an SNS publish made ahead, and
//! the OAuth token requests of EventBridge connections.
//! It must not depend on the protocols or the server.

use super::Runtime;
use crate::clock::Clock;
use crate::dispatch::Dispatch;
use crate::dispatch::commands::{Applied, Command, CommandRef, encode};
use crate::error::{Answer, AwsError};
use crate::services::sqs::messages::{Wait, check_receive};
use crate::services::sqs::shapes::{ReceiveMessageInput, ReceiveMessageOutput};
use crate::services::{Context, ServiceId, parse, sns};
use serde_json::Value;
use std::time::Duration;

/// How long an operation's answer waits for the token requests it set off (an OAuth
/// connection's): AWS answers CreateConnection at once, AUTHORIZING, without waiting on the
/// authorization endpoint. An endpoint on the test machine answers well within this, so
/// DescribeConnection right after already shows how it went; one that does not answer in time
/// (or cannot be reached in time) leaves the connection AUTHORIZING, and its exchange finishes
/// on its own (issue 33).
const TOKEN_WAIT: Duration = Duration::from_secs(2);

/// Runs `operation` of `service`. With `--state-dir`, each change is journaled under the lock
/// and answered once it is durable.
pub async fn call(
    rt: &Runtime,
    cx: &Context,
    service: ServiceId,
    operation: &str,
    input: Value,
) -> Answer {
    match (service, operation) {
        // Boxed: a future is as large as its largest state, and every request's future is moved
        // into the heap whole; these two (long polls, signing on all cores) would make every
        // request's several times larger.
        (ServiceId::Sqs, "ReceiveMessage") => Box::pin(receive_message(rt, cx, input)).await,
        (ServiceId::Sns, "Publish") => Box::pin(publish(rt, cx, input, false)).await,
        (ServiceId::Sns, "PublishBatch") => Box::pin(publish(rt, cx, input, true)).await,
        (ServiceId::Lambda, "Invoke") => {
            match Box::pin(super::invoke::invoke(rt, cx, input)).await? {
                super::invoke::Handled::Answered(output) => Ok(output),
                super::invoke::Handled::Queued(input) => {
                    rt.under_the_lock(cx, service, operation, input).await
                }
            }
        }
        (ServiceId::Lambda, "DeleteFunction") => {
            let name = input.get("FunctionName").and_then(Value::as_str);
            let arn = name.and_then(|n| crate::services::lambda::functions::resolve(cx, n).ok());
            let deleted = rt.under_the_lock(cx, service, operation, input).await?;
            if let Some((arn, _)) = arn {
                rt.stop_function(&arn).await;
            }
            Ok(deleted)
        }
        (ServiceId::Lambda, "CreateFunction" | "UpdateFunctionCode" | "PublishLayerVersion") => {
            let input = Box::pin(unpack_code(rt, operation, input)).await?;
            rt.under_the_lock(cx, service, operation, input).await
        }
        _ => rt.under_the_lock(cx, service, operation, input).await,
    }
}

impl Runtime {
    /// An operation run in one piece under the lock, then the token requests it asked for.
    async fn under_the_lock(
        &self,
        cx: &Context,
        service: ServiceId,
        operation: &str,
        input: Value,
    ) -> Answer {
        let encoded = self.encode(&CommandRef::Call {
            cx,
            service,
            operation,
            input: &input,
        });
        let (output, tokens, ticket) = {
            let mut state = self.state_async().await?;
            let ticket = self.record(&state, encoded);
            let output = state.call(cx, service, operation, input);
            (
                output,
                std::mem::take(&mut state.events.token_requests),
                ticket,
            )
        };
        self.durable(ticket).await?;
        if !tokens.is_empty()
            && let Some(app) = self.this.upgrade()
        {
            // Off the request: the answer waits at most TOKEN_WAIT for it.
            let exchange = tokio::spawn(async move { exchange_tokens(&app, tokens).await });
            let _ = Clock::within(TOKEN_WAIT, exchange).await;
        }
        output
    }
}

/// A Lambda function's zip (`Code.ZipFile` of CreateFunction, `ZipFile` of UpdateFunctionCode)
/// or a layer's (`Content.ZipFile` of PublishLayerVersion) unpacked off the lock (`code.rs`),
/// and put in the input as where it is (`SwitchyardUnpacked`), so that neither the operation
/// nor the journal holds its bytes.
async fn unpack_code(rt: &Runtime, operation: &str, mut input: Value) -> Result<Value, AwsError> {
    let code = match operation {
        "CreateFunction" => input.get_mut("Code").and_then(Value::as_object_mut),
        "PublishLayerVersion" => input.get_mut("Content").and_then(Value::as_object_mut),
        _ => input.as_object_mut(),
    };
    let Some(code) = code else {
        return Ok(input);
    };
    // Only this function says where code was unpacked.
    code.remove("SwitchyardUnpacked");
    let Some(Value::String(zip)) = code.remove("ZipFile") else {
        return Ok(input);
    };
    let root = rt.code_root();
    let unpacked = tokio::task::spawn_blocking(move || super::code::unpack_base64(&root, &zip))
        .await
        .map_err(|e| AwsError::internal(format!("unpacking the code: {e}")))??;
    code.insert(
        "SwitchyardUnpacked".into(),
        serde_json::json!({
            "dir": unpacked.dir.to_string_lossy(),
            "sha256": unpacked.sha256,
            "size": unpacked.size,
        }),
    );
    Ok(input)
}

/// Sends the HTTP requests an operation asked for (an SNS HTTP/S subscription's confirmation
/// token, say) and hands each answer back to the state.
async fn exchange_tokens(
    rt: &Runtime,
    tokens: Vec<crate::services::events::store::TokenRequest>,
) -> Result<(), AwsError> {
    for request in tokens {
        let answer = rt
            .exchange(
                &request.method,
                &request.url,
                request.headers.clone(),
                request.body.clone(),
            )
            .await;
        rt.run(Command::TokenAnswered { request, answer }).await?;
    }
    Ok(())
}

/// ReceiveMessage, long polling included: waits until a message is visible, the virtual
/// deadline passes, or the wait's wall-clock duration runs out, whichever comes first. Each look
/// at the queue is one change.
async fn receive_message(rt: &Runtime, cx: &Context, raw: Value) -> Result<Value, AwsError> {
    let journaled = match rt.is_durable() {
        true => raw.clone(),
        false => Value::Null,
    };
    let input: ReceiveMessageInput = parse(raw)?;
    let key = check_receive(cx, &input)?.0;
    let stopwatch = Clock::stopwatch();
    let mut wait: Option<Wait> = None;
    loop {
        let encoded = rt.encode(&CommandRef::Receive {
            cx,
            input: &journaled,
            wait,
        });
        let (received, ticket, notified, wall) = {
            let mut state = rt.state_async().await?;
            let ticket = rt.record(&state, encoded);
            let received = state.receive_look(cx, &input, &mut wait);
            let (notified, wall) = match &received {
                Ok(None) => {
                    let mut notified = Box::pin(rt.waiter(&key.arn()).notified_owned());
                    notified.as_mut().enable();
                    (Some(notified), wait.map_or(0, |w| w.wall_seconds))
                }
                _ => (None, 0),
            };
            (received, ticket, notified, wall)
        };
        rt.durable(ticket).await?;
        let Some(notified) = notified else {
            let output = received?.unwrap_or_default();
            sign_bodies(&output).await;
            return encode(output);
        };
        let wall = Duration::from_secs(u64::try_from(wall).unwrap_or(0));
        let left = wall.saturating_sub(stopwatch.elapsed());
        let woken = tokio::select! {
            woken = Clock::within(left, notified) => woken.is_some(),
            _ = rt.closed() => false,
        };
        if !woken {
            return encode(ReceiveMessageOutput::default());
        }
    }
}

/// Publish and PublishBatch (`batch`): the notifications of a publish to a standard topic that
/// are delivered at once (HTTP/S, e-mail-JSON, Firehose, Lambda) are signed ahead, off the lock
/// (RSA takes a fraction of a millisecond; under the lock it would hold up every other request),
/// between its two halves. A publish with nothing to sign ahead runs both under one hold.
async fn publish(rt: &Runtime, cx: &Context, raw: Value, batch: bool) -> Result<Value, AwsError> {
    let prepare = Command::PublishPrepare {
        input: raw.clone(),
        batch,
    };
    let encoded = rt.encode(&prepare);
    let half = {
        let mut state = rt.state_async().await?;
        // Its entry needs no wait of its own: the second half's commit covers it.
        let _ = rt.record(&state, encoded);
        let prepared = match state.apply(prepare) {
            Applied::Prepared(prepared) => prepared,
            _ => Vec::new(),
        };
        let (prepared, signs): (Vec<_>, Vec<_>) = prepared
            .into_iter()
            .map(|p| p.map_or((None, Vec::new()), |(p, s)| (Some(p), s)))
            .unzip();
        let signs: Vec<_> = signs.into_iter().flatten().collect();
        let command = Command::Publish {
            cx: cx.clone(),
            input: raw,
            batch,
            prepared,
        };
        if signs.is_empty() {
            // Nothing to sign ahead (no HTTP/S, e-mail-JSON, Firehose or Lambda subscription):
            // the second half under the same hold, so that a publish queues for the lock once.
            let encoded = rt.encode(&command);
            let ticket = rt.record(&state, encoded);
            SecondHalf::Done(state.apply(command), ticket)
        } else {
            SecondHalf::AfterSigning(command, signs)
        }
    };
    let applied = match half {
        SecondHalf::Done(applied, ticket) => {
            rt.durable(ticket).await?;
            applied
        }
        SecondHalf::AfterSigning(command, signs) => {
            sign_ahead(signs).await;
            rt.run(command).await?
        }
    };
    match applied {
        Applied::Output(output, _) => output,
        _ => Err(AwsError::internal("a publish answered nothing")),
    }
}

/// A publish's second half: applied under the first half's hold, or to apply once its
/// notifications are signed.
enum SecondHalf {
    Done(Applied, Option<super::durable::Ticket>),
    AfterSigning(Command, Vec<sns::publish::SignAhead>),
}

/// Signs the received notifications not signed yet (`crate::body`), outside the lock.
async fn sign_bodies(output: &ReceiveMessageOutput) {
    let unsigned = (output.messages.iter()).filter(|m| m.body.needs_signing());
    on_all_cores(unsigned.map(|m| {
        let body = m.body.clone();
        move || body.sign()
    }))
    .await;
}

/// Makes the signatures ahead of a publish (a batch's as well as those of concurrent requests);
/// the signer keeps them.
async fn sign_ahead(signs: Vec<sns::publish::SignAhead>) {
    on_all_cores((signs.into_iter()).map(|sign| move || sns::publish::sign_ahead(sign))).await;
}

/// Runs each job as a task of its own on tokio's blocking pool, so that they spread over the
/// cores, and waits for all of them.
async fn on_all_cores<F: FnOnce() + Send + 'static>(jobs: impl Iterator<Item = F>) {
    let tasks: Vec<_> = jobs.map(tokio::task::spawn_blocking).collect();
    for task in tasks {
        let _ = task.await;
    }
}
