//! Integration tests: an emulator in-process on a free port with a manual clock, driven by the
//! official AWS SDK for Rust and by raw requests as other clients send them.

mod harness;

mod auth;
mod bad_input;
mod clock_helpers;
mod console;
mod control_api;
mod custom_bus;
mod custom_bus_delivery;
mod delivery_timeline;
mod event_streams;
mod events_api;
mod events_api_destinations;
mod events_archive;
mod events_delivery;
mod events_exact;
mod events_exact_resources;
mod iam;
mod init;
mod localstack;
mod pipes;
mod query_protocol;
mod rest_json;
mod sns_archive;
mod sns_http;
mod sns_https;
mod sns_limits;
mod sns_platform;
mod sns_publish;
mod sns_retries;
mod sns_subscriptions;
mod sns_topics;
mod sqs_batch;
mod sqs_concurrency;
mod sqs_exact_api;
mod sqs_exact_query;
mod sqs_exact_visibility;
mod sqs_fifo;
mod sqs_hosts;
mod sqs_queues;
mod sqs_redrive;
mod sqs_sdk;
