//! The access keys of AssumeRole sessions. Like AWS's, a session key id (`ASIA…`, 20
//! characters) carries the account it acts in: its 16 characters after the prefix are base32
//! of 10 bytes whose first 6, with the top bit and the last 7 bits masked off, are the account
//! number. So a request signed with one is in the role's account without any lookup, and
//! `--auth verify` knows its secret the same way (derived from the key id).
//! Plain functions; depends on nothing of the emulator but the generator.

use crate::engine::rng::Rng;
use sha2::{Digest, Sha256};

const PREFIX: &str = "ASIA";
const BASE32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// A new session access key id acting in `account` (12 digits).
pub fn session_key(rng: &mut Rng, account: &str) -> String {
    let number: u64 = account.parse().unwrap_or(0);
    let noise = rng.next_u64();
    let head = (number << 7) | (noise & 0x7f);
    let mut bytes = [0u8; 10];
    bytes[..6].copy_from_slice(&head.to_be_bytes()[2..]);
    bytes[6..].copy_from_slice(&(noise >> 32).to_be_bytes()[4..]);
    let mut bits: u128 = 0;
    for b in bytes {
        bits = (bits << 8) | u128::from(b);
    }
    let body: String = (0..16)
        .rev()
        .filter_map(|i| BASE32.get(((bits >> (i * 5)) & 31) as usize))
        .map(|&b| char::from(b))
        .collect();
    format!("{PREFIX}{body}")
}

/// The account a session access key id acts in, when `key` is one (`ASIA` and 16 base32
/// characters).
pub fn account_of(key: &str) -> Option<String> {
    let body = key.strip_prefix(PREFIX)?;
    if body.len() != 16 {
        return None;
    }
    let mut bits: u128 = 0;
    for c in body.bytes() {
        let v = BASE32.iter().position(|&b| b == c)?;
        bits = (bits << 5) | v as u128;
    }
    let head = (bits >> 32) as u64;
    let number = (head & 0x7fff_ffff_ff80) >> 7;
    Some(format!("{number:012}"))
}

/// The secret access key of a session key id: derived from it, so `--auth verify` can check
/// requests signed with session credentials without keeping them.
pub fn session_secret(key: &str) -> String {
    let digest = Sha256::digest(format!("switchyard session {key}").as_bytes());
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    digest
        .iter()
        .chain(digest.iter())
        .take(40)
        .filter_map(|b| alphabet.get(usize::from(b & 63)))
        .map(|&b| char::from(b))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_keys_carry_their_account() {
        let mut rng = Rng::new(3);
        for account in [
            "000000000000",
            "111122223333",
            "999999999999",
            "012345678901",
        ] {
            let key = session_key(&mut rng, account);
            assert_eq!(key.len(), 20, "{key}");
            assert_eq!(account_of(&key).as_deref(), Some(account), "{key}");
        }
    }

    #[test]
    fn aws_keys_decode_as_aws_decodes_them() {
        // The published example of the scheme (Aidan Steele, "Decoding AWS access key IDs"):
        // ASIAY34FZKBOKMUTVV7A belongs to account 609629065308.
        assert_eq!(
            account_of("ASIAY34FZKBOKMUTVV7A").as_deref(),
            Some("609629065308")
        );
        for not_a_session_key in [
            "AKIAIOSFODNN7EXAMPLE",
            "test",
            "ASIA1",
            "ASIAabcdefghijklmnop",
        ] {
            assert_eq!(account_of(not_a_session_key), None, "{not_a_session_key}");
        }
    }
}
