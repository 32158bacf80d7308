#![no_main]
//! `switchyard::fuzz::rfc3339` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| switchyard::fuzz::rfc3339(data));
