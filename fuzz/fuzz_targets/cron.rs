#![no_main]
//! `switchyard::fuzz::cron` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| switchyard::fuzz::cron(data));
