//! What routing one event costs as rules grow (issue 17, items 4 and 6), for instruction
//! counts: a classic bus, an SNS topic or a custom bus with N rules, filtered subscriptions or
//! subscribers of which exactly one matches each event (patterns `{"source": ["bench"],
//! "detail-type": ["type-<i>"]}`, attribute policies `{"kind": ["k<i>"]}`), each with an SQS
//! target, and R requests of one event straight into the state (no HTTP). Rules past a bus's
//! quota of 300 go on other buses. Count instructions with callgrind at R and at 0 requests;
//! the difference over R is one request (docs/benchmarks.md, "Routing").
//!
//! ```text
//! cargo build --release --example routing_counts
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/routing_counts events 300 1000
//! ```

use serde_json::{Value, json};
use switchyard::dispatch::Dispatch;
use switchyard::services::{Context, ServiceId};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: routing_counts events|sns|bus <rules> <requests>";
    let [_, kind, rules, requests] = &args[..] else {
        panic!("{usage}");
    };
    let rules: usize = rules.parse().expect(usage);
    let requests: usize = requests.parse().expect(usage);
    let emulator = switchyard::Emulator::start(switchyard::Config::for_tests())
        .await
        .expect("the emulator starts");
    let runtime = emulator.app().clone();
    let cx = Context {
        request_id: "counts".into(),
        account: "000000000000".into(),
        region: "us-east-1".into(),
        access_key: None,
        host: "localhost".into(),
        queue_url_style: Default::default(),
        trace_header: None,
    };
    let call = |service, operation: &str, input: Value| {
        let answer = runtime.state().call(&cx, service, operation, input);
        answer.unwrap_or_else(|e| panic!("{operation}: {e:?}"))
    };
    let created = call(ServiceId::Sqs, "CreateQueue", json!({"QueueName": "q"}));
    let mut url = created["QueueUrl"].as_str().unwrap().to_string();
    let queue = "arn:aws:sqs:us-east-1:000000000000:q";
    let pattern = |i: usize| json!({"source": ["bench"], "detail-type": [format!("type-{i}")]});
    let (operation, service, input) = match kind.as_str() {
        "events" => {
            for i in 0..rules {
                let bus = match i / 300 {
                    0 => "default".to_string(),
                    n => format!("other-{n}"),
                };
                if i % 300 == 0 && bus != "default" {
                    call(ServiceId::Events, "CreateEventBus", json!({"Name": bus}));
                }
                let name = format!("r{i}");
                let rule = json!({"Name": name, "EventBusName": bus,
                    "EventPattern": pattern(i).to_string()});
                call(ServiceId::Events, "PutRule", rule);
                let targets = json!({"Rule": name, "EventBusName": bus,
                    "Targets": [{"Id": "q", "Arn": queue}]});
                call(ServiceId::Events, "PutTargets", targets);
            }
            let entry = json!({"Source": "bench", "DetailType": "type-0", "Detail": "{}"});
            ("PutEvents", ServiceId::Events, json!({"Entries": [entry]}))
        }
        "sns" => {
            let topic = call(ServiceId::Sns, "CreateTopic", json!({"Name": "t"}));
            let topic = topic["TopicArn"].as_str().unwrap().to_string();
            for i in 0..rules {
                let name = format!("q{i}");
                let created = call(ServiceId::Sqs, "CreateQueue", json!({"QueueName": name}));
                if i == 0 {
                    // The one matching subscription's queue.
                    url = created["QueueUrl"].as_str().unwrap().to_string();
                }
                let policy = json!({"kind": [format!("k{i}")]}).to_string();
                let endpoint = format!("arn:aws:sqs:us-east-1:000000000000:{name}");
                call(
                    ServiceId::Sns,
                    "Subscribe",
                    json!({"TopicArn": topic, "Protocol": "sqs", "Endpoint": endpoint,
                        "Attributes": {"FilterPolicy": policy, "RawMessageDelivery": "true"}}),
                );
            }
            let kind = json!({"DataType": "String", "StringValue": "k0"});
            let publish = json!({"TopicArn": topic, "Message": "m",
                "MessageAttributes": {"kind": kind}});
            ("Publish", ServiceId::Sns, publish)
        }
        "bus" => {
            let bus = call(ServiceId::EventsV2, "CreateEventBus", json!({"Name": "b"}));
            let bus = bus["EventBusArn"].as_str().unwrap().to_string();
            for i in 0..rules {
                let filter = json!({"Scope": "EVENT", "Pattern": pattern(i).to_string()});
                let role = "arn:aws:iam::000000000000:role/r";
                call(
                    ServiceId::EventsV2,
                    "CreateSubscriber",
                    json!({"Name": format!("s{i}"), "EventBusArn": bus,
                        "FilterConfiguration": {"Filters": [filter]},
                        "InvokeConfiguration": {"TargetArn": queue, "RoleArn": role}}),
                );
            }
            let entry = json!({"Source": "bench", "DetailType": "type-0", "Detail": "{}"});
            let put = json!({"EventBusArn": bus, "Entries": [entry]});
            ("PutEvents", ServiceId::EventsV2, put)
        }
        _ => panic!("{usage}"),
    };
    for _ in 0..requests {
        call(service, operation, input.clone());
    }
    let depth = call(
        ServiceId::Sqs,
        "GetQueueAttributes",
        json!({"QueueUrl": url, "AttributeNames": ["ApproximateNumberOfMessages"]}),
    );
    let depth = &depth["Attributes"]["ApproximateNumberOfMessages"];
    println!("{kind}: {operation} x {requests} with {rules} rules, {depth} messages delivered");
}
