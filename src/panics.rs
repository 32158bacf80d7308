//! A panic caught where a request is served: the future that panicked ends, the request is
//! answered 500 InternalFailure by its caller, and the connection (and every other request on
//! the server) carries on. No request should panic; this is the guard for one that still does.
//! The state's lock is not this module's concern: a panic under it marks the state as broken
//! (`runtime::lock`).
//! A leaf: any layer may use it.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::task::Poll;

/// Runs `future` to its end, or to a panic in one of its polls: then `Err` with the panic's
/// message, and `future` is dropped without being polled again.
pub(crate) async fn catch<F: Future>(future: F) -> Result<F::Output, String> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(move |cx| {
        // Unwind-safe as far as the request goes: the future is never polled again, and what
        // it shares (the state) is guarded by its own lock's poisoning.
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(message(payload.as_ref()))),
        }
    })
    .await
}

/// The text a panic was raised with.
pub(crate) fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_in_a_poll_ends_the_future_with_its_message() {
        let answered = catch(async { 7 }).await;
        assert_eq!(answered, Ok(7));
        let panicked = catch(async {
            tokio::task::yield_now().await;
            let empty: Vec<u8> = Vec::new();
            #[allow(clippy::indexing_slicing)]
            empty[1]
        })
        .await;
        let message = panicked.unwrap_err();
        assert!(message.contains("index out of bounds"), "{message}");
        let formatted = catch(async { panic!("{} went wrong", "this") }).await;
        assert_eq!(formatted, Err::<(), _>("this went wrong".to_string()));
    }
}
