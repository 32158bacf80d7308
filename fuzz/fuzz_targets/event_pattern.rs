#![no_main]
//! `switchyard::fuzz::event_pattern` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| switchyard::fuzz::event_pattern(data));
