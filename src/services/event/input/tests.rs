use super::*;

/// The Amazon EC2 event of the user guide's input-transformation page, as delivered.
const EC2: &str = r#"{"version":"0","id":"7bf73129-1428-4cd3-a780-95db273d1602","detail-type":"EC2 Instance State-change Notification","source":"aws.ec2","account":"123456789012","time":"2015-11-11T21:29:54Z","region":"us-east-1","resources":["arn:aws:ec2:us-east-1:123456789012:instance/i-abcd1111"],"detail":{"instance-id":"i-0123456789","state":"RUNNING"}}"#;
/// The event of LocalStack's AWS-validated snapshots (tests/aws/services/events/test_events_inputs).
const CORE: &str = r#"{"version":"0","id":"0b4c8a3e-1111-2222-3333-444455556666","detail-type":"core.update-account-command","source":"core.update-account-command","account":"111111111111","time":"2024-06-11T08:33:04Z","region":"us-east-1","resources":[],"detail":{"command":"update-account","payload":{"acc_id":"0a787ecb-4015","sf_id":"baz"}}}"#;
const RES: Reserved = Reserved {
    rule_arn: "arn:aws:events:us-east-2:123456789012:rule/example",
    rule_name: "example",
    // 2015-11-11T21:29:55.000Z, written as deliveries write it
    ingested_at: 1_447_277_395_000,
};

fn run(event_text: &str, input: TargetInput) -> Result<String, InputError> {
    let event: Value = serde_json::from_str(event_text).unwrap();
    render(&input, &event, event_text, &RES)
}

fn paths(spec: &str) -> BTreeMap<String, String> {
    let pairs = spec.split_whitespace().filter_map(|kv| kv.split_once('='));
    pairs.map(|(k, v)| (k.into(), v.into())).collect()
}

/// Runs a table: `$path => body` is an InputPath case; `@ name=path ...` sets the
/// InputPathsMap for the transformer cases that follow, a template line then `=> body`.
fn check(event: &str, table: &str) {
    let mut map = BTreeMap::new();
    let mut lines = table.lines().map(str::trim).filter(|l| !l.is_empty());
    while let Some(line) = lines.next() {
        if let Some(spec) = line.strip_prefix('@') {
            map = paths(spec);
            continue;
        }
        let (input, expected) = match line.split_once(" => ") {
            Some((path, body)) if line.starts_with('$') => (TargetInput::Path(path), body),
            _ => {
                let body = lines.next().and_then(|l| l.strip_prefix("=> ")).unwrap();
                (
                    TargetInput::Transformer {
                        paths: &map,
                        template: line,
                    },
                    body,
                )
            }
        };
        validate(&input).unwrap();
        assert_eq!(run(event, input).as_deref(), Ok(expected), "{line}");
    }
}

#[test]
fn user_guide_and_api_reference_examples() {
    // User guide table (simple string, string with escaped quotes, simple JSON, JSON with
    // strings and variables, variables and static information, reserved variables in JSON,
    // reserved variables in a string, CloudWatch log group), then the API reference's
    // InputTransformer examples (text, text with quote marks, variables in quotes and out).
    check(
        EC2,
        r#"
            @ timestamp=$.time instance=$.detail.instance-id state=$.detail.state
            "instance <instance> is in <state>"
            => "instance i-0123456789 is in RUNNING"
            "instance \"<instance>\" is in <state>"
            => "instance \"i-0123456789\" is in RUNNING"
            {  "instance" : <instance>,  "state": <state> }
            => {"instance":"i-0123456789","state":"RUNNING"}
            { "instance" : <instance>, "state": "<state>", "instanceStatus": "instance \"<instance>\" is in <state>" }
            => {"instance":"i-0123456789","state":"RUNNING","instanceStatus":"instance \"i-0123456789\" is in RUNNING"}
            {  "instance" : <instance>,  "state": [ 9, <state>, true ],  "Transformed" : "Yes" }
            => {"instance":"i-0123456789","state":[9,"RUNNING",true],"Transformed":"Yes"}
            { "instance" : <instance>, "state": <state>, "ruleArn" : <aws.events.rule-arn>, "ruleName" : <aws.events.rule-name>, "originalEvent" : <aws.events.event> }
            => {"instance":"i-0123456789","state":"RUNNING","ruleArn":"arn:aws:events:us-east-2:123456789012:rule/example","ruleName":"example","originalEvent":{"id":"7bf73129-1428-4cd3-a780-95db273d1602","account":"123456789012","detailType":"EC2 Instance State-change Notification","time":"2015-11-11T21:29:54Z","source":"aws.ec2","region":"us-east-1","resources":["arn:aws:ec2:us-east-1:123456789012:instance/i-abcd1111"],"version":"0"}}
            "<aws.events.rule-name> triggered"
            => "example triggered"
            { "timestamp" : <timestamp>, "message": "instance \"<instance>\" is in <state>" }
            => {"timestamp":"2015-11-11T21:29:54Z","message":"instance \"i-0123456789\" is in RUNNING"}
            @ instance=$.detail.instance-id status=$.detail.state
            <instance> is in state <status>
            => i-0123456789 is in state RUNNING
            <instance> is in state "<status>"
            => i-0123456789 is in state "RUNNING"
            {"myInstance": <instance>,"myStatus": "<instance> is in state \"<status>\""}
            => {"myInstance":"i-0123456789","myStatus":"i-0123456789 is in state \"RUNNING\""}
        "#,
    );
}

#[test]
fn aws_recorded_deliveries() {
    // InputPath, then transformers with all paths present, `command` missing, none.
    check(
        CORE,
        &format!(
            r#"
            $.detail => {{"command":"update-account","payload":{{"acc_id":"0a787ecb-4015","sf_id":"baz"}}}}
            $.detail.payload => {{"acc_id":"0a787ecb-4015","sf_id":"baz"}}
            $.detail.payload.sf_id => "baz"
            @ detail-type=$.detail-type timestamp=$.time command=$.detail.command
            "Event of <detail-type> type, at time <timestamp>, info extracted from detail <command>"
            => "Event of core.update-account-command type, at time 2024-06-11T08:33:04Z, info extracted from detail update-account"
            {{"detailType": <detail-type>,  "time": <timestamp>, "command": <command>}}
            => {{"detailType":"core.update-account-command","time":"2024-06-11T08:33:04Z","command":"update-account"}}
            "{{[/Check with special starting characters for event of <detail-type> type"
            => "{{[/Check with special starting characters for event of core.update-account-command type"
            @ detail-type=$.detail-type timestamp=$.time command=$.detail.notinmessage
            "Event of <detail-type> type, at time <timestamp>, info extracted from detail <command>"
            => "Event of core.update-account-command type, at time 2024-06-11T08:33:04Z, info extracted from detail "
            {{"detailType": <detail-type>,  "time": <timestamp>, "command": <command>}}
            => {{"detailType":"core.update-account-command","time":"2024-06-11T08:33:04Z","command":""}}
            @
            "Message containing all pre defined variables <aws.events.rule-arn> <aws.events.rule-name> <aws.events.event.ingestion-time>"
            => "Message containing all pre defined variables arn:aws:events:us-east-2:123456789012:rule/example example 2015-11-11T21:29:55.000Z"
            {{"originalEvent": <aws.events.event>, "originalEventJson": <aws.events.event.json>}}
            => {{"originalEvent":{{"id":"0b4c8a3e-1111-2222-3333-444455556666","account":"111111111111","detailType":"core.update-account-command","time":"2024-06-11T08:33:04Z","source":"core.update-account-command","region":"us-east-1","resources":[],"version":"0"}},"originalEventJson":{CORE}}}
        "#
        ),
    );
}

#[test]
fn event_constant_and_input_path() {
    let pretty = "{\n  \"resources\": [\"a\", \"b\"],\n  \"detail\": {\"n\": 5, \"ok\": true, \"t\": {\"k\": \"v\"}, \"x\": null}\n}";
    assert_eq!(run(pretty, TargetInput::Event).unwrap(), pretty);
    assert_eq!(run(pretty, TargetInput::Path("$")).unwrap(), pretty);
    assert_eq!(
        run(pretty, TargetInput::Constant("{ \"a\": 1 }")).unwrap(),
        "{ \"a\": 1 }"
    );
    check(
        pretty,
        r#"
            $.resources[1] => "b"
            $.resources[*] => ["a","b"]
            $.detail.* => [5,true,{"k":"v"},null]
            $.detail.n => 5
            $.detail.t => {"k":"v"}
            $.detail.x => null
            $.detail.absent => null
            $.resources[7] => null
            $.detail.absent[*] => null
        "#,
    );
}

#[test]
fn values_in_each_position_and_reserved_variables() {
    let event = r#"{"version":"0","id":"e1","detail-type":"t","source":"s","account":"1","time":"2020-01-01T00:00:00Z","region":"r","replay-name":"rp","resources":[],"detail":{"n":5,"ok":false,"x":null,"obj":{"a":[1,"z"],"b":2},"list":["p","q"],"q":"he said \"hi\""}}"#;
    // Whole values get JSON (strings quoted, so escaped); strings and text templates get
    // raw text; a missing value is `""` or nothing; non-placeholders stay literal.
    check(
        event,
        &format!(
            r#"
            @ n=$.detail.n ok=$.detail.ok x=$.detail.x obj=$.detail.obj list=$.detail.list first=$.detail.list[0] q=$.detail.q gone=$.nope
            {{"v": [<n>, <ok>, <x>, <obj>, <list>, <first>, <q>, <gone>]}}
            => {{"v":[5,false,null,{{"a":[1,"z"],"b":2}},["p","q"],"p","he said \"hi\"",""]}}
            [<n>, <first>, <q>]
            => [5, p, he said "hi"]
            {{"s": "<n> <ok> <x> <first> [<gone>]", "k" : "a  b", "e":"\" <n>"}}
            => {{"s":"5 false null p []","k":"a  b","e":"\" 5"}}
            n=<n>  obj=<obj> q=<q> <br/> a < b > <gone>.
            => n=5  obj={{a:[1,z],b:2}} q=he said "hi" <br/> a < b > .
            {{"s": "obj <obj>", "o": <obj>}}
            => {{"s":"obj {{a:[1,z],b:2}}","o":{{"a":[1,"z"],"b":2}}}}
            "<list>"
            => "[p,q]"
            {{"one": "level <first> of [<list>]", "list": <list>}}
            => {{"one":"level p of [[p,q]]","list":["p","q"]}}
            {{"e": <aws.events.event>}}
            => {{"e":{{"id":"e1","account":"1","detailType":"t","time":"2020-01-01T00:00:00Z","source":"s","region":"r","resources":[],"version":"0","replay-name":"rp"}}}}
            {{"e": <aws.events.event.json>}}
            => {{"e":{event}}}
            {{"at": <aws.events.event.ingestion-time>, "in": "<aws.events.rule-name>@<aws.events.event.ingestion-time>"}}
            => {{"at":"2015-11-11T21:29:55.000Z","in":"example@2015-11-11T21:29:55.000Z"}}
        "#
        ),
    );
    let map = paths("n=$.detail.n obj=$.detail.obj list=$.detail.list q=$.detail.q");
    let template = |template| TargetInput::Transformer {
        paths: &map,
        template,
    };
    assert_eq!(run(event, template(" <n>\n")).unwrap(), " 5\n");
    // Unescaped text that breaks a JSON template fails the delivery.
    for t in [r#"{"s": "<q>"}"#, "{\"s\": <n>"] {
        let err = run(event, template(t)).unwrap_err();
        assert!(
            err.0.starts_with("Transformed input is not valid JSON"),
            "{t}: {err}"
        );
    }
}

/// kind|argument|message. `key`, `value` and `map` change the InputPathsMap (`a=$.detail.a`)
/// of a transformer whose template is `x`. In arguments `X<n>` stands for n `x`s and
/// `MAP<n>` for n entries; `LEN <member> <rule>` is AWS's length constraint message.
const VALIDATION: &str = r#"
        event||ok
        input|{"a": [1, 2]}|ok
        input|"text"|ok
        path|$|ok
        path|$.detail-type|ok
        path|$.resources[0]|ok
        path|$.detail.items[*].id|ok
        path|$.detail.*|ok
        path|$.a/b.c_d|ok
        template|x <b c> <br/>|ok
        template|{"k": <a>, "e": <aws.events.event>, "s": "<aws.events.rule-arn>"}|ok
        key|detail-type_2|ok
        map|MAP100|ok
        input|not json|Input for target t1 is not a valid JSON text.
        input||Input for target t1 is not a valid JSON text.
        input|"X8191"|LEN input less than or equal to 8192
        path|detail.a|InputPath for target t1 is invalid.
        path||InputPath for target t1 is invalid.
        path|$.detail['a']|InputPath for target t1 is invalid.
        path|$.detail.|InputPath for target t1 is invalid.
        path|$..detail|InputPath for target t1 is invalid.
        path|$.resources[x]|InputPath for target t1 is invalid.
        path|$.a b|InputPath for target t1 is invalid.
        path|$.X255|LEN inputPath less than or equal to 256
        template||LEN inputTransformer.inputTemplate greater than or equal to 1
        template|X8193|LEN inputTransformer.inputTemplate less than or equal to 8192
        template|"<a> and <b>"|InputTemplate for target t1 contains invalid placeholder b.
        template|{"x": <aws.events.rule>}|InputTemplate for target t1 contains invalid placeholder aws.events.rule.
        template|{<a>: 1}|InputTemplate for target t1 uses placeholder a as an object key.
        template|<aws.events.event.json>|InputTemplate for target t1 contains placeholder aws.events.event.json valid only for JSON template.
        template|[<aws.events.event.json>]|InputTemplate for target t1 contains placeholder aws.events.event.json valid only for JSON template.
        template|"event <aws.events.event>"|InputTemplate for target t1 contains placeholder aws.events.event valid only for JSON template.
        template|"event was <a> today"|ok
        template|{"e": <aws.events.event.json>, "s": "<aws.events.event>"}|ok
        template|{"name": "testing_at_"<a>}|InputTemplate for target t1 is not a valid JSON text.
        template|{"a": <a>|InputTemplate for target t1 is not a valid JSON text.
        template|{"a": <a> <a>}|InputTemplate for target t1 is not a valid JSON text.
        template|{"a": "<a> of <a>", "b": [<a>, 1]}|ok
        template|{"k": 1, "<a>": 2}|InputTemplate for target t1 uses placeholder a as an object key.
        key|aws.events.rule-name|KEYS
        key|X257|KEYS
        value|detail.b|InputPath for target t1 is invalid.
        value|$.X255|LEN inputTransformer.inputPathsMap less than or equal to 256
        map|MAP101|LEN inputTransformer.inputPathsMap less than or equal to 100
    "#;

#[test]
fn validation() {
    let keys = "1 validation error detected: Value at 'targets.member.inputTransformer.inputPathsMap' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 256, Member must have length greater than or equal to 1, Member must satisfy regular expression pattern: [A-Za-z0-9\\_\\-]+]";
    for line in VALIDATION.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let [kind, arg, message] = line.splitn(3, '|').collect::<Vec<_>>()[..] else {
            panic!()
        };
        let mut arg = arg.to_string();
        for n in [255, 257, 8191, 8193] {
            arg = arg.replace(&format!("X{n}"), &"x".repeat(n));
        }
        for n in [100, 101] {
            arg = arg.replace(
                &format!("MAP{n}"),
                &(0..n).map(|i| format!("k{i}=$ ")).collect::<String>(),
            );
        }
        let mut map = paths(if kind == "map" { &arg } else { "a=$.detail.a" });
        match kind {
            "key" => map.insert(arg.clone(), "$.x".into()),
            "value" => map.insert("b".into(), arg.clone()),
            _ => None,
        };
        let template = if kind == "template" { &arg } else { "x" };
        let input = match kind {
            "event" => TargetInput::Event,
            "input" => TargetInput::Constant(&arg),
            "path" => TargetInput::Path(&arg),
            _ => TargetInput::Transformer {
                paths: &map,
                template,
            },
        };
        let expected = match message.strip_prefix("LEN ").and_then(|m| m.split_once(' ')) {
            _ if message == "ok" => Ok(()),
            _ if message == "KEYS" => Err(InputError(keys.into())),
            Some((member, rule)) => Err(constraint(
                member,
                &format!("Member must have length {rule}"),
            )),
            None => Err(InputError(message.into())),
        };
        assert_eq!(validate_target("t1", &input), expected, "{line}");
    }
    let (map, message) = (
        paths(""),
        "InputTemplate for target contains invalid placeholder zz.",
    );
    let input = TargetInput::Transformer {
        paths: &map,
        template: "<zz>",
    };
    assert_eq!(validate(&input), Err(InputError(message.into())));
    let message =
        "Only one of Input, InputPath, or InputTransformer must be provided for target t1.";
    assert_eq!(exclusive_error("t1").to_string(), message);
}

#[test]
fn placeholder_contexts_and_minify() {
    let template = r#"{"a": [<x>, {"b": "<y>", <z>: 1}], "\"<w>": "\\", "v": <v>} <"#;
    let holes: Vec<_> = scan(template, false)
        .into_iter()
        .filter_map(Piece::hole)
        .collect();
    let (value, text, key) = (Ctx::Value, Ctx::Text, Ctx::Key);
    assert_eq!(
        holes,
        [
            ("x", value),
            ("y", text),
            ("z", key),
            ("w", key),
            ("v", value)
        ]
    );
    assert_eq!(
        minify(" { \"a b\" : [ 1 , \"\\\" c \" ] }\n"),
        r#"{"a b":[1,"\" c "]}"#
    );
}
