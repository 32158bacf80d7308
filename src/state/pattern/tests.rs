//! The pattern's tests: the match table, the error table and the limits.
//! Tests only.

use super::compile::wildcard_complexity;
use super::*;

/// One case a line: `+` (matches) or `-` (does not), the pattern, the event. Sources: AWS
/// docs and LocalStack's AWS-recorded templates (names in comments), Event Ruler's README.
const MATCH_CASES: &str = r#"
+ {"source":["aws.ec2"]} {"source":"aws.ec2","detail":{}}
- {"source":["aws.ec2"]} {"source":"aws.EC2"}
+ {"source":["a","b"]} {"source":"b"}
- {"source":["a"]} {"detail-type":"a"}
+ {"source":["a"],"detail-type":["t"]} {"source":"a","detail-type":"t"}
+ {"detail":{"state":["running"]}} {"detail":{"state":"running","other":1}}
- {"detail":{"state":["running"]}} {"detail":{"status":"running"}}
- {"detail":{"my-key":["my-value"]}} {"detail":"{\"my-key\": \"my-value\"}"}
- {"Source":["a"]} {"source":"a"}
# arrays, arrays_NEG, arrays_empty_null_NEG, list_within_dict
+ {"resources":["r2","r9"]} {"resources":["r1","r2"]}
- {"resources":["r3"]} {"resources":["r1","r2"]}
- {"resources":[null]} {"resources":[]}
+ {"a":[1]} {"a":[[0,1],[2]]}
+ {"detail":{"automations":{"id":[{"exists":true}]}}} {"detail":{"automations":[{"k":"v"},{"id":"x"}]}}
+ {"a":{"b":["1"]}} {"a":[{"b":"0"},{"b":"1"}]}
- {"a":{"b":["1"],"c":["2"]}} {"a":[{"b":"1","c":"3"},{"b":"4","c":"2"}]}
+ {"a":{"b":["1"],"c":["2"]}} {"a":[{"b":"1","c":"3"},{"b":"1","c":"2"}]}
# values: numbers by value (number_comparison_float), strings never equal numbers, null and ""
+ {"n":[5]} {"n":5}
+ {"n":[300]} {"n":300.0}
+ {"n":[3.0e2]} {"n":300}
- {"n":[5]} {"n":"5"}
- {"n":["5"]} {"n":5}
- {"n":[9007199254740993]} {"n":9007199254740992}
+ {"b":[false]} {"b":false}
- {"b":[false]} {"b":"false"}
+ {"x":[null]} {"x":null}
- {"x":[null]} {}
- {"x":[null]} {"x":""}
+ {"x":[""]} {"x":""}
# prefix, suffix, equals-ignore-case (content_ignorecase_empty, _NEG)
+ {"time":[{"prefix":"2017-10-02"}]} {"time":"2017-10-02T18:43:48Z"}
- {"time":[{"prefix":"2017-10-02"}]} {"time":"2017-10-03"}
- {"n":[{"prefix":"1"}]} {"n":12}
+ {"s":[{"prefix":""}]} {"s":"anything"}
- {"s":[{"prefix":""}]} {"s":5}
+ {"f":[{"suffix":".png"}]} {"f":"a.png"}
- {"f":[{"suffix":".png"}]} {"f":"a.PNG"}
+ {"s":[{"prefix":{"equals-ignore-case":"EventB"}}]} {"s":"eventbridge"}
- {"s":[{"prefix":{"equals-ignore-case":"EventB"}}]} {"s":"xeventb"}
+ {"s":[{"suffix":{"equals-ignore-case":".PNG"}}]} {"s":"x.png"}
+ {"n":[{"equals-ignore-case":"alice"}]} {"n":"ALICE"}
+ {"n":[{"equals-ignore-case":""}]} {"n":""}
- {"n":[{"equals-ignore-case":""}]} {"n":"test-value"}
+ {"n":[{"equals-ignore-case":"ÉTÉ"}]} {"n":"été"}
# wildcard (content_wildcard_*)
+ {"f":[{"wildcard":"/Users/*/doc.txt"}]} {"f":"/Users/ls/dir/doc.txt"}
+ {"f":[{"wildcard":"/Users/*/dir/dir/dir/dir/dir/doc.txt"}]} {"f":"/Users/u/dir/dir/dir/dir/dir/doc.txt"}
+ {"a":[{"wildcard":"arn:aws:events:us-east-1:*:event-bus/*"}]} {"a":"arn:aws:events:us-east-1:1:event-bus/b"}
- {"a":[{"wildcard":"arn:aws:events:us-east-1:*:event-bus/*"}]} {"a":"arn:aws:events:us-west-2:1:event-bus/b"}
+ {"s":[{"wildcard":"Simple*Service"}]} {"s":"SimpleService"}
- {"s":[{"wildcard":"Simple*Service"}]} {"s":"SimpleServiceX"}
+ {"s":[{"wildcard":"*"}]} {"s":""}
- {"s":[{"wildcard":"*"}]} {"s":1}
+ {"s":[{"wildcard":"a\\*b"}]} {"s":"a*b"}
- {"s":[{"wildcard":"a\\*b"}]} {"s":"axb"}
+ {"s":[{"wildcard":"a\\\\*"}]} {"s":"a\\zz"}
+ {"s":[{"wildcard":"ab*ab"}]} {"s":"abab"}
- {"s":[{"wildcard":"ab*ab"}]} {"s":"aba"}
# anything-but (content_anything_*, or-numeric-anything-but, the recorded null case)
+ {"s":[{"anything-but":"initializing"}]} {"s":"running"}
- {"s":[{"anything-but":"initializing"}]} {"s":"initializing"}
+ {"s":[{"anything-but":"initializing"}]} {"s":null}
- {"s":[{"anything-but":"initializing"}]} {}
+ {"x":[{"anything-but":0}]} {"x":789}
- {"x":[{"anything-but":123}]} {"x":123}
+ {"x":[{"anything-but":123}]} {"x":"123"}
- {"x":[{"anything-but":[100,200,300]}]} {"x":100.0}
- {"s":[{"anything-but":["stopped","overloaded"]}]} {"s":"stopped"}
- {"s":[{"anything-but":{"prefix":"init"}}]} {"s":"initializing"}
+ {"s":[{"anything-but":{"prefix":"init"}}]} {"s":12}
- {"s":[{"anything-but":{"prefix":"init"}}]} {}
+ {"s":[{"anything-but":{"prefix":["init","test"]}}]} {"s":null}
- {"s":[{"anything-but":{"prefix":["init","test"]}}]} {"s":"testing"}
- {"f":[{"anything-but":{"suffix":[".png",".txt"]}}]} {"f":"a.txt"}
- {"s":[{"anything-but":{"equals-ignore-case":"Init"}}]} {"s":"INIT"}
+ {"s":[{"anything-but":{"equals-ignore-case":["a","b"]}}]} {"s":"c"}
- {"s":[{"anything-but":{"equals-ignore-case":["a","b"]}}]} {"s":"B"}
- {"p":[{"anything-but":{"wildcard":"*/lib/*"}}]} {"p":"/usr/lib/x"}
+ {"p":[{"anything-but":{"wildcard":["*/lib/*","*/dir/*"]}}]} {"p":123}
+ {"p":[{"anything-but":{"wildcard":""}}]} {"p":"dir/init/file"}
+ {"N":[{"numeric":[">",100]},{"anything-but":"101"}]} {"N":"42"}
- {"N":[{"numeric":[">",100]},{"anything-but":"101"}]} {"N":"101"}
+ {"s":[{"anything-but":"a"}]} {"s":["a","b"]}
- {"s":[{"anything-but":"a"}]} {"s":{"x":1}}
# numeric (content_numeric_*, numeric-int-float, numeric-null_NEG, numeric-string_NEG)
+ {"c":[{"numeric":[">",0,"<=",5]}]} {"c":5}
- {"c":[{"numeric":[">",0,"<=",5]}]} {"c":0}
- {"c":[{"numeric":[">",0,"<",5]}]} {"c":5}
+ {"c":[{"numeric":[">=",0,"<",5]}]} {"c":0}
+ {"d":[{"numeric":["<",10]}]} {"d":-3.5}
+ {"x":[{"numeric":["=",3.018e2]}]} {"x":301.8}
- {"x":[{"numeric":[">",100]}]} {"x":null}
- {"x":[{"numeric":[">",100]}]} {"x":"300"}
+ {"x":[{"numeric":[">",100]}]} {"x":101.0}
+ {"x":[{"numeric":[">=",1e10]}]} {"x":2e10}
+ {"x":[{"numeric":[">",1]}]} {"x":[0,2]}
# exists (content_exists*, exists_dynamodb_NEG, exists_list_empty_NEG, or-exists*, or-anything-but)
+ {"d":{"k":[{"exists":true}]}} {"d":{"k":"v"}}
- {"d":{"k":[{"exists":true}]}} {"d":{"nk":"v"}}
+ {"d":{"k":[{"exists":true}]}} {"d":{"k":null}}
- {"d":{"k":[{"exists":true}]}} {"d":{"k":{"S":"x"}}}
+ {"d":{"k":[{"exists":false}]}} {"d":{"nk":"v"}}
- {"d":{"k":[{"exists":false}]}} {"d":{"k":"v"}}
+ {"d":{"k":[{"exists":false}]}} {"d":{"k":{"c1":100}}}
+ {"d":{"k":[{"exists":false}]}} {}
- {"resources":[{"exists":true}]} {"resources":[]}
+ {"resources":[{"exists":false}]} {"resources":[]}
- {"d":{"l1":{"l2":{"l3":[{"exists":false}]}}}} {"d":{"l1":{"l2":{"l3":"v"}}}}
+ {"h":{"S":[{"anything-but":["roses"]},{"exists":false}]}} {"h":{"N":"789"}}
+ {"d":{"h":{"S":[{"anything-but":["roses"]},{"exists":false}]}}} {"d":{"p":{"N":"1"}}}
+ {"h":{"S":[{"anything-but":["roses"]},{"exists":false}]}} {"h":{"S":"ABCD"}}
- {"h":{"S":[{"anything-but":["roses"]},{"exists":false}]}} {"h":{"S":"roses"}}
+ {"k":[{"exists":true},{"prefix":"IGNORED"},{"suffix":"IGNORED"}]} {"k":"my-value"}
# cidr (content_ip_address*), IP literals
+ {"ip":[{"cidr":"10.0.0.0/24"}]} {"ip":"10.0.0.255"}
- {"ip":[{"cidr":"10.0.0.0/24"}]} {"ip":"10.0.1.0"}
- {"ip":[{"cidr":"10.0.0.0/24"}]} {"ip":123}
+ {"ip":[{"cidr":"2001:db8::/32"}]} {"ip":"2001:0db8:ffff::1"}
- {"ip":[{"cidr":"2001:db8::/32"}]} {"ip":"2001:db9::1"}
- {"ip":[{"cidr":"0.0.0.0/1"}]} {"ip":"::1"}
+ {"ip":["2001:db8::1"]} {"ip":"2001:0db8:0:0:0:0:0:1"}
# $or (complex_or*), legacy "$or" fields
+ {"source":["a"],"$or":[{"m":["x"]},{"n":["y"]}]} {"source":"a","n":"y"}
- {"source":["a"],"$or":[{"m":["x"]},{"n":["y"]}]} {"source":"a","n":"z"}
+ {"detail":{"$or":[{"c":[{"numeric":[">",0]}]},{"d":[{"numeric":["<",10]}]}]}} {"detail":{"d":3}}
+ {"$or":[{"a":["1"]},{"b":["2"],"$or":[{"c":["3"]},{"d":["4"]}]}]} {"b":"2","d":"4"}
- {"$or":[{"a":["1"]},{"b":["2"],"$or":[{"c":["3"]},{"d":["4"]}]}]} {"b":"2","d":"5"}
+ {"$or":{"a":["1"]}} {"$or":{"a":"1"}}
+ {"$or":["x"]} {"$or":"x"}
# dots join keys (dot_joining_pattern, dot_joining_*_NEG)
+ {"detail":{"state.status":["running"]}} {"detail":{"state":{"status":"running"}}}
+ {"detail":{"state.status":["running"]}} {"detail":{"state.status":"running"}}
- {"detail":{"state.status":{"status":["running"]}}} {"detail":{"state":{"status":"running"}}}
- {"detail":{"state":{"status":["running"]}}} {"detail":{"state.status":{"status":"running"}}}
+ {"detail":{"state":{"status":["running"]}}} {"detail":{"state.status":"running"}}
- {"detail":{"state":{"status":["running"]}}} {"detail":{"state.status":"stopped"}}
+ {"detail":{"state":{"status":["running"],"code":[16]}}} {"detail":{"state":{"code":16},"state.status":"running"}}
- {"detail":{"state":{"status":[{"exists":false}]}}} {"detail":{"state.status":"running"}}
+ {"a":{"b":{"c":["x"]}}} {"a.b.c":"x"}
+ {"a":{"b":{"c":["x"]}}} {"a":{"b.c":"x"}}
# duplicate keys: the last wins (complex_multi_key)
+ {"d":{"loc":[{"prefix":"us-"}],"loc":[{"anything-but":"us-east"}]}} {"d":{"loc":"eu-west"}}
- {"d":{"loc":[{"prefix":"us-"}],"loc":[{"anything-but":"us-east"}]}} {"d":{"loc":"us-east"}}
+ {"a":["x"],"a":["y"]} {"a":"y"}
- {"a":["x"],"a":["y"]} {"a":"x"}
# events that are not objects
- {"a":[{"exists":true}]} [1]
+ {"a":[{"exists":false}]} "text"
"#;

/// One case a line: the pattern, then the reason AWS gives (Event Ruler's where AWS's was
/// not recorded).
const ERROR_CASES: &str = r#"
{"resources":[]} Empty arrays are not allowed
{"detail":{}} Empty objects are not allowed
{} Empty objects are not allowed
{"int":42} "int" must be an object or an array
{"string":"my-value"} "string" must be an object or an array
{"a":[["x"]]} Match value must be String, number, true, false, or null
{"a":[{}]} Match expression name not found
{"my_key":[{"EXISTS":true}]} Unrecognized match type EXISTS
{"detail":{"equal":[{"NUMERIC":["=",5]}]}} Unrecognized match type NUMERIC
{"time":[{"prefix":["2022-07-13"]}]} prefix match pattern must be a string
{"f":[{"suffix":123}]} suffix match pattern must be a string
{"d":[{"equals-ignore-case":["x"]}]} equals-ignore-case match pattern must be a string
{"d":[{"equals-ignore-case":{"prefix":"ec2"}}]} equals-ignore-case match pattern must be a string
{"e":[{"wildcard":123}]} wildcard match pattern must be a string
{"e":[{"wildcard":"arn:aws:events:us-east-1:**:event-bus/*"}]} Consecutive wildcard characters at pos 26
{"e":[{"wildcard":"a\\b"}]} Invalid escape character at pos 2
{"e":[{"wildcard":"*:*:*:*:*:event-bus/*"}]} Rule is too complex - try using fewer wildcard characters or fewer repeating character sequences after a wildcard character
{"s":[{"prefix":{"equals-ignore-case":5}}]} equals-ignore-case match pattern must be a string
{"s":[{"prefix":{"foo":"x"}}]} Unsupported prefix pattern: foo
{"s":[{"suffix":{}}]} Suffix expression name not found
{"s":[{"prefix":"a","suffix":"b"}]} Only one key allowed in match expression
{"s":[{"anything-but":null}]} Value of anything-but must be an array or single string/number value.
{"s":[{"anything-but":["a",null]}]} Inside anything but list, start|null|boolean is not supported.
{"s":[{"anything-but":[{"prefix":"a"}]}]} Inside anything but list, start|null|boolean is not supported.
{"s":[{"anything-but":["a",1]}]} Inside anything but list, either all values are number or string, mixed type is not supported
{"s":[{"anything-but":[]}]} Inside anything but list, either all values are number or string, mixed type is not supported
{"s":[{"anything-but":{"equals-ignore-case":123}}]} Inside anything-but/equals-ignore-case list, number|start|null|boolean is not supported.
{"s":[{"anything-but":{"prefix":123}}]} prefix/suffix match pattern must be a string
{"s":[{"anything-but":{"prefix":[123,"test"]}}]} prefix/suffix match pattern must be a string
{"s":[{"anything-but":{"prefix":""}}]} Null prefix/suffix not allowed
{"s":[{"anything-but":{"suffix":["a",""]}}]} Null prefix/suffix not allowed
{"s":[{"anything-but":{"wildcard":123}}]} wildcard match pattern must be a string
{"s":[{"anything-but":{"wildcard":"a**"}}]} Consecutive wildcard characters at pos 2
{"s":[{"anything-but":{"prefix":{"equals-ignore-case":"file"}}}]} Value of anything-but must be an array or single string/number value.
{"s":[{"anything-but":{"regex":"x"}}]} Unsupported anything-but pattern: regex
{"s":[{"anything-but":{}}]} Anything-But expression name not found
{"s":[{"anything-but":"a","prefix":"b"}]} Too many elements in numeric expression
{"c":[{"numeric":5}]} Value of numeric must be an array.
{"c":[{"numeric":[">",0,">",0]}]} Bad numeric range operator: >
{"c":[{"numeric":[">",0,"<"]}]} Value of < must be numeric
{"c":[{"numeric":["=","5"]}]} Value of equals must be numeric
{"c":[{"numeric":["!=",5]}]} Unrecognized numeric range operator: !=
{"c":[{"numeric":[5]}]} Invalid member in numeric match: 5
{"c":[{"numeric":[]}]} Invalid member in numeric match: ]
{"c":[{"numeric":[">",5,"<",1]}]} Bottom must be less than top
{"c":[{"numeric":[">",5,5]}]} Bad value in numeric range: 5
{"c":[{"numeric":["<",5,">",1]}]} Too many elements in numeric expression
{"c":[{"numeric":[">",0,"<",5,6]}]} Too many terms in numeric range expression
{"c":[{"exists":"yes"}]} exists match pattern must be either true or false.
{"ip":[{"cidr":"10.0.0.0"}]} Malformed CIDR, one '/' required
{"ip":[{"cidr":"10.0.0.0/abc"}]} Malformed CIDR, mask bits must be an integer
{"ip":[{"cidr":"10.0.0.0/-1"}]} Malformed CIDR, mask bits must not be negative
{"ip":[{"cidr":"xx.11.xx/24"}]} Nonstandard IP address: xx.11.xx
{"ip":[{"cidr":"xxxx:db8:1234:1a00::/64"}]} Nonstandard IP address: xxxx:db8:1234:1a00::
{"ip":[{"cidr":"999.0.0.0/8"}]} Invalid IP address: 999.0.0.0
{"ip":[{"cidr":["bad-type"]}]} prefix match pattern must be a string
{"$or":[{"prefix":"a"},{"b":["2"]}]} Unrecognized match type b
{"$or":[{"a":["1"]},{"b":[]}]} Empty arrays are not allowed
{"$or":[{"a":["1"]},{}]} Empty objects are not allowed
["not","a","dict"] Filter is not an object
"#;

/// Splits `<json> <rest>` where the first JSON value's text is kept as written.
fn split_json(line: &str) -> (&str, &str) {
    let mut stream = serde_json::Deserializer::from_str(line).into_iter::<Value>();
    stream.next().expect("a JSON value").expect("valid JSON");
    let end = stream.byte_offset();
    (&line[..end], line[end..].trim())
}

#[test]
fn match_table() {
    let mut count = 0;
    for line in MATCH_CASES
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (expected, rest) = line.split_at(1);
        let (pattern, event) = split_json(rest.trim());
        let compiled =
            EventPattern::parse(pattern).unwrap_or_else(|e| panic!("{pattern}: {}", e.message()));
        let event: Value = serde_json::from_str(event).expect(event);
        assert_eq!(compiled.matches(&event), expected == "+", "{line}");
        count += 1;
    }
    assert!(count >= 80, "{count} cases");
}

#[test]
fn error_table() {
    let mut count = 0;
    for line in ERROR_CASES.lines().filter(|l| !l.is_empty()) {
        let (pattern, reason) = split_json(line);
        let err = EventPattern::parse(pattern).expect_err(line);
        assert_eq!(err.reason, reason, "{pattern}");
        count += 1;
    }
    assert!(count >= 30, "{count} cases");
}

#[test]
fn text_that_is_not_json() {
    let expecting = "was expecting (JSON String, Number, Array, Object or token 'null', \
                     'true' or 'false')";
    let valid_value = "expected a valid value (JSON String, Number, Array, Object or token \
                       'null', 'true' or 'false')";
    // The first four recorded from AWS (LocalStack's test_invalid_json_event_pattern).
    let cases = [
        (
            "this is valid json but not a dict",
            format!("Unrecognized token 'this': {expecting}"),
            5,
        ),
        (
            "{\"not\": closed mark\"",
            format!("Unrecognized token 'closed': {expecting}"),
            15,
        ),
        (
            "{'bad': 'quotation'}",
            "Unexpected character (''' (code 39)): was expecting double-quote to start \
             field name"
                .to_string(),
            2,
        ),
        (
            "[\"not\", \"a\", \"dict\", \"but valid json\"]",
            "Filter is not an object".to_string(),
            2,
        ),
        ("{\"a\": [", "Unexpected end-of-input".to_string(), 8),
        ("\"x\"", "Filter is not an object".to_string(), 4),
        (
            "{\"b\":,true}",
            format!("Unexpected character (',' (code 44)): {valid_value}"),
            7,
        ),
    ];
    for (text, reason, column) in cases {
        let err = EventPattern::parse(text).unwrap_err();
        assert_eq!(err.reason, reason, "{text}");
        let at = format!("\n at [Source: (String)\"{text}\"; line: 1, column: {column}]");
        assert_eq!(err.at.as_deref(), Some(at.as_str()), "{text}");
        let message = format!("Event pattern is not valid. Reason: {reason}{at}");
        assert_eq!(err.message(), message);
    }
    let long = format!("{{\"a\": {}", "x".repeat(600));
    let err = EventPattern::parse(&long).unwrap_err();
    let at = err.at.unwrap();
    assert!(
        at.ends_with("[truncated 106 chars]; line: 1, column: 607]"),
        "{at}"
    );
    let lines = EventPattern::parse("{\n  \"a\": nope\n}").unwrap_err();
    let at = lines.at.unwrap();
    assert!(at.ends_with("line: 2, column: 12]"), "{at}");
}

#[test]
fn message_wraps_the_reason() {
    let err = EventPattern::parse(r#"{"a":[]}"#).unwrap_err();
    assert_eq!(
        err.message(),
        "Event pattern is not valid. Reason: Empty arrays are not allowed"
    );
    assert_eq!(err.to_string(), err.message());
}

#[test]
fn wildcard_complexity_scores() {
    let score = |ops: &[&str]| {
        let ws: Vec<Wildcard> = ops.iter().map(|o| Wildcard::parse(o).unwrap()).collect();
        wildcard_complexity(&ws.iter().collect::<Vec<_>>())
    };
    assert!(score(&["*:*:*:*:*:event-bus/*"]) > MAX_WILDCARD_COMPLEXITY); // AWS: too complex
    assert_eq!(score(&["/Users/*/dir/dir/dir/dir/dir/doc.txt"]), 7); // AWS: accepted
    assert_eq!(score(&["arn:aws:events:us-east-1:*:event-bus/*"]), 4);
    assert_eq!(score(&["plain"]), 1);
    let long = "a*".repeat(2000);
    assert!(score(&[long.as_str()]) > MAX_WILDCARD_COMPLEXITY);
}

#[test]
fn or_combinations_are_limited() {
    let group = |i: usize, n: usize| {
        let branches: Vec<String> = (0..n).map(|j| format!(r#"{{"f{i}":["{j}"]}}"#)).collect();
        format!(r#""k{i}":{{"$or":[{}]}}"#, branches.join(","))
    };
    let pattern = |groups: usize, n: usize| {
        let parts: Vec<String> = (0..groups).map(|i| group(i, n)).collect();
        format!("{{{}}}", parts.join(","))
    };
    assert!(EventPattern::parse(&pattern(3, 10)).is_ok()); // 1000 combinations
    let err = EventPattern::parse(&pattern(10, 2)).unwrap_err(); // 1024
    assert!(
        err.reason.starts_with("Rule is too complex"),
        "{}",
        err.reason
    );
}
