//! The runtime's effects: HTTP attempts the engine hands out, sent off the lock, their outcome
//! reported back to the state; and one-off HTTP exchanges (OAuth token requests) through the
//! same client.

use super::*;

impl Runtime {
    /// Runs effects on the async side; each reports back to the engine when done.
    pub(super) fn start_effects(&self, effects: Vec<Effect>) {
        let Some(app) = self.this.upgrade() else {
            return;
        };
        let generation = self.generation.load(Ordering::SeqCst);
        for effect in effects {
            self.in_flight.fetch_add(1, Ordering::SeqCst);
            let app = app.clone();
            tokio::spawn(async move {
                app.run_effect(effect, generation).await;
                if app.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
                    app.idle.notify_waiters();
                }
            });
        }
    }

    /// Carries out `effect` of the state of `generation`; its outcome is dropped when that
    /// state was replaced meanwhile.
    async fn run_effect(&self, effect: Effect, generation: u64) {
        let command = match effect {
            Effect::Http {
                delivery,
                method,
                url,
                headers,
                body,
                timeout_ms,
            } => {
                let timeout = timeout_ms.map_or(HTTP_TIMEOUT, |ms| {
                    Duration::from_millis(u64::try_from(ms).unwrap_or(0))
                });
                let result = self.send(&method, &url, headers, body, timeout).await;
                Command::Answered { delivery, result }
            }
            Effect::Invoke {
                delivery,
                function,
                payload,
                request_id,
                host,
            } => {
                let call = super::invoke::DeliveryCall {
                    delivery,
                    function,
                    payload,
                    request_id,
                    host,
                };
                let (invoked, record) = self.invoke_for_delivery(call).await;
                Command::Invoked {
                    delivery,
                    invoked,
                    record,
                }
            }
        };
        let encoded = self.encode(&command);
        let ticket = {
            let mut state = self.state();
            // The answer of a state replaced meanwhile is not this state's, and a broken state
            // takes none.
            if self.generation.load(Ordering::SeqCst) != generation || state.is_broken() {
                return;
            }
            let ticket = self.record(&state, encoded);
            state.apply(command);
            ticket
        };
        let _ = self.durable(ticket).await;
    }

    /// Sends a delivery: how the endpoint answered (its status, its `Retry-After` in
    /// milliseconds when it gave one in seconds, and its body: the first MiB, lossily UTF-8), or
    /// why there was no answer (refused, unreachable, TLS handshake failed, `timeout`: 15 s by
    /// default). [`HttpResult::outcome`] says what it means for the attempt.
    async fn send(
        &self,
        method: &str,
        url: &str,
        headers: Vec<(String, String)>,
        body: String,
        timeout: Duration,
    ) -> HttpResult {
        let request = match build_request(method, url, headers, body) {
            Ok(r) => r,
            Err(_) => return HttpResult::InvalidEndpoint,
        };
        match Clock::within(timeout, self.client().request(request)).await {
            None => HttpResult::Timeout,
            Some(Err(e)) if is_tls_error(&e) => HttpResult::Tls,
            Some(Err(_)) => HttpResult::Connection,
            Some(Ok(response)) => {
                let status = response.status().as_u16();
                let retry_after = response
                    .headers()
                    .get(hyper::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<i64>().ok())
                    .map(|seconds| seconds.saturating_mul(1000));
                // Read (a bounded part of) the answer: some sources use it, and the connection
                // can be reused.
                let body = Clock::within(
                    HTTP_TIMEOUT,
                    Limited::new(response.into_body(), 1 << 20).collect(),
                )
                .await
                .and_then(Result::ok)
                .map(|body| String::from_utf8_lossy(&body.to_bytes()).into_owned());
                HttpResult::Answered {
                    status,
                    retry_after,
                    body,
                }
            }
        }
    }
}

impl Runtime {
    pub(super) fn client(&self) -> &Client<HttpsConnector<HttpConnector>, Full<Bytes>> {
        self.http.get_or_init(|| delivery_client(&self.https_ca))
    }

    /// One HTTP exchange outside any delivery (an OAuth token request), through the delivery
    /// client with its timeout: the answer's status and body (the first MiB, lossily UTF-8), or
    /// why there was none.
    pub async fn exchange(
        &self,
        method: &str,
        url: &str,
        headers: Vec<(String, String)>,
        body: String,
    ) -> Result<(u16, String), String> {
        let request = build_request(method, url, headers, body)
            .map_err(|e| format!("invalid request: {e}"))?;
        let response = Clock::within(HTTP_TIMEOUT, self.client().request(request))
            .await
            .ok_or("timed out")?
            .map_err(|e| format!("no answer: {e}"))?;
        let status = response.status().as_u16();
        let body = Clock::within(
            HTTP_TIMEOUT,
            Limited::new(response.into_body(), 1 << 20).collect(),
        )
        .await
        .ok_or("timed out reading the answer")?
        .map_err(|e| format!("reading the answer: {e}"))?
        .to_bytes();
        Ok((status, String::from_utf8_lossy(&body).into_owned()))
    }
}
