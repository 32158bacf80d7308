#![no_main]
//! `switchyard::fuzz::filter_policy` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| switchyard::fuzz::filter_policy(data));
