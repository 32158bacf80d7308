#![no_main]
//! `switchyard::fuzz::query` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| switchyard::fuzz::query(data));
