#![no_main]
//! `switchyard::fuzz::sigv4` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| switchyard::fuzz::sigv4(data));
