//! Receipt handles: what a receive hands its consumer to delete the message or change its
//! visibility, written and read back here. A leaf: it imports the store's queue key and the
//! errors only, so that ReceiveMessage (`messages.rs`) and the emulator's own consumers
//! (`consume.rs`) both use it without importing each other.

use super::errors::SqsError;
use super::store::QueueKey;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;

/// A receipt handle names the queue, the message's place in it and the receive.
pub fn receipt_handle(key: &QueueKey, seq: u64, nonce: u64) -> String {
    B64.encode(format!("{}/{}/{seq}/{nonce:016x}", key.account, key.name))
}

/// The message's place and the receive's nonce a handle of queue `key` names;
/// ReceiptHandleIsInvalid when it is not one of this queue's handles.
pub fn parse_receipt(key: &QueueKey, handle: &str) -> Result<(u64, u64), SqsError> {
    let invalid = || {
        SqsError::ReceiptHandleIsInvalid(format!(
            "The input receipt handle \"{handle}\" is not a valid receipt handle."
        ))
    };
    let text = B64
        .decode(handle)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(invalid)?;
    let parts: Vec<&str> = text.split('/').collect();
    match parts.as_slice() {
        [account, name, seq, nonce] if *account == key.account && *name == key.name => {
            let seq = seq.parse().map_err(|_| invalid())?;
            let nonce = u64::from_str_radix(nonce, 16).map_err(|_| invalid())?;
            Ok((seq, nonce))
        }
        _ => Err(invalid()),
    }
}
