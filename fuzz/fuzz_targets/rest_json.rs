#![no_main]
//! `switchyard::fuzz::rest_json` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| switchyard::fuzz::rest_json(data));
