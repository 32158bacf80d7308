//! The Query encoder's and decoder's own tests: the XML pinned byte for byte, read back as
//! clients read it.
//! Tests only.

use super::*;
use crate::model::{SNS, SQS};
use serde_json::json;

fn params(pairs: &[(&str, &str)]) -> Params {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn decodes_flattened_maps_and_lists_as_old_sdks_send_them() {
    let p = params(&[
        ("Action", "SendMessage"),
        ("QueueUrl", "http://localhost/000000000000/q"),
        ("MessageBody", "hi"),
        ("DelaySeconds", "5"),
        ("MessageAttribute.1.Name", "color"),
        ("MessageAttribute.1.Value.DataType", "String"),
        ("MessageAttribute.1.Value.StringValue", "blue"),
        ("MessageAttribute.2.Name", "n"),
        ("MessageAttribute.2.Value.DataType", "Number"),
        ("MessageAttribute.2.Value.StringValue", "1"),
    ]);
    let v = decode(&SQS, "SendMessageRequest", &p).unwrap();
    assert_eq!(
        v,
        json!({
            "QueueUrl": "http://localhost/000000000000/q",
            "MessageBody": "hi",
            "DelaySeconds": 5,
            "MessageAttributes": {
                "color": {"DataType": "String", "StringValue": "blue"},
                "n": {"DataType": "Number", "StringValue": "1"}
            }
        })
    );
    let p = params(&[
        ("QueueUrl", "u"),
        ("AttributeName.1", "All"),
        ("AttributeName.2", "SenderId"),
        ("MaxNumberOfMessages", "10"),
    ]);
    let v = decode(&SQS, "ReceiveMessageRequest", &p).unwrap();
    assert_eq!(v["AttributeNames"], json!(["All", "SenderId"]));
    assert_eq!(v["MaxNumberOfMessages"], json!(10));
    let p = params(&[
        ("QueueName", "q"),
        ("Attribute.1.Name", "DelaySeconds"),
        ("Attribute.1.Value", "3"),
    ]);
    let v = decode(&SQS, "CreateQueueRequest", &p).unwrap();
    assert_eq!(
        v,
        json!({"QueueName": "q", "Attributes": {"DelaySeconds": "3"}})
    );
}

#[test]
fn rejects_malformed_numbers() {
    let p = params(&[("QueueUrl", "u"), ("MaxNumberOfMessages", "ten")]);
    let err = decode(&SQS, "ReceiveMessageRequest", &p).unwrap_err();
    assert_eq!(err.code, "InvalidParameterValue");
}

/// A model of our own that uses every trait the encoder reads: result wrappers (given and
/// defaulted), `member`/`entry` and named items, flattened lists and maps (on the shape and on
/// the reference), nested lists and maps, and each scalar kind.
const TRICKY_MODEL: &str = r#"{
    "metadata": {"apiVersion": "2020-01-01", "endpointPrefix": "tricky", "protocols": ["query"],
                 "xmlNamespace": "http://tricky.example/doc/2020-01-01/"},
    "operations": {
        "Tricky": {"output": {"shape": "TrickyOutput"}},
        "Wrapped": {"output": {"shape": "TrickyOutput", "resultWrapper": "CustomWrapper"}}
    },
    "shapes": {
        "TrickyOutput": {"type": "structure", "members": {
            "Text": {"shape": "S"},
            "When": {"shape": "T"},
            "WhenText": {"shape": "T"},
            "Count": {"shape": "L"},
            "Ratio": {"shape": "D"},
            "Flag": {"shape": "B"},
            "Data": {"shape": "Bin"},
            "Number": {"shape": "S"},
            "Absent": {"shape": "S"},
            "Nothing": {"shape": "S"},
            "Items": {"shape": "ItemList"},
            "Named": {"shape": "NamedList", "locationName": "NamedItems"},
            "Flat": {"shape": "SList", "flattened": true, "locationName": "FlatValue"},
            "FlatShape": {"shape": "FlatSList"},
            "Nested": {"shape": "SListList"},
            "Tags": {"shape": "TagMap"},
            "Attrs": {"shape": "FlatMap", "locationName": "Attr"},
            "Empty": {"shape": "ItemList"}
        }},
        "Item": {"type": "structure", "members": {
            "Name": {"shape": "S"},
            "Sub": {"shape": "SListMap"}
        }},
        "ItemList": {"type": "list", "member": {"shape": "Item"}},
        "NamedList": {"type": "list", "member": {"shape": "S", "locationName": "Entry"}},
        "SList": {"type": "list", "member": {"shape": "S", "locationName": "Value"}},
        "FlatSList": {"type": "list", "flattened": true, "member": {"shape": "S"}},
        "SListList": {"type": "list", "member": {"shape": "SList"}},
        "TagMap": {"type": "map", "key": {"shape": "S"}, "value": {"shape": "Item"}},
        "FlatMap": {"type": "map", "flattened": true,
                    "key": {"shape": "S", "locationName": "Name"},
                    "value": {"shape": "S", "locationName": "Value"}},
        "SListMap": {"type": "map", "key": {"shape": "S"}, "value": {"shape": "SList"}},
        "S": {"type": "string"},
        "T": {"type": "timestamp"},
        "L": {"type": "long"},
        "D": {"type": "double"},
        "B": {"type": "boolean"},
        "Bin": {"type": "blob"}
    }
}"#;

/// Markup, quotes, `\r` (which XML parsers would turn into `\n`), tab, newline, a control
/// character, non-ASCII and a CDATA end.
const TRICKY_TEXT: &str = "a<b>&c \"q\" 'a' x\r\ny\rz\t\u{1}\u{1f} é 😀 ]]>";

fn tricky_output() -> Value {
    json!({
        "Text": TRICKY_TEXT,
        "When": 1_700_000_000.123_6,
        "WhenText": "2023-11-14T22:13:20Z",
        "Count": 42,
        "Ratio": 0.5,
        "Flag": true,
        "Data": "AAEC/w==",
        "Number": 7,
        "Nothing": null,
        "Items": [
            {"Name": "one", "Sub": {"k<1>": ["a&b", "c"], "k2": []}},
            {"Name": "two"}
        ],
        "Named": ["n1", "n'2"],
        "Flat": ["f1", "f\"2"],
        "FlatShape": ["g1"],
        "Nested": [["x", "y"], [], ["z"]],
        "Tags": {"t&1": {"Name": "v\r"}, "t2": {}},
        "Attrs": {"SenderId": "000000000000", "We<ird>": "\r\n"},
        "Empty": []
    })
}

/// `TRICKY_TEXT` as the answers write it: `\r` and the control characters as hexadecimal
/// character references, which every SDK's parser turns back into the character. (The
/// hand-written escaper before quick-xml left `'` as it was; `&apos;` parses the same.)
const TRICKY_XML: &str =
    "a&lt;b&gt;&amp;c &quot;q&quot; &apos;a&apos; x&#xD;\ny&#xD;z\t&#x1;&#x1F; é 😀 ]]&gt;";

fn utf8(xml: Vec<u8>) -> String {
    String::from_utf8(xml).expect("answers are UTF-8")
}

/// The expected answer: the XML declaration, then `body` with `{T}` standing for `TRICKY_XML`.
fn pinned(body: &str) -> String {
    let decl = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";
    format!("{decl}{}", body.replace("{T}", TRICKY_XML))
}

#[test]
fn pins_the_xml_of_every_trait_and_tricky_text() {
    let model: Model = serde_json::from_str(TRICKY_MODEL).unwrap();
    let xml = utf8(encode_response(
        &model,
        "Tricky",
        &tricky_output(),
        "rid<&>",
    ));
    let expected = pinned(
        "<TrickyResponse xmlns=\"http://tricky.example/doc/2020-01-01/\"><TrickyResult><Attr>\
        <Name>SenderId</Name><Value>000000000000</Value></Attr><Attr>\
        <Name>We&lt;ird&gt;</Name><Value>&#xD;\n</Value></Attr><Count>42</Count>\
        <Data>AAEC/w==</Data><Empty></Empty><Flag>true</Flag><Value>f1</Value>\
        <Value>f&quot;2</Value><FlatShape>g1</FlatShape><Items><member><Name>one</Name><Sub>\
        <entry><key>k&lt;1&gt;</key><value><Value>a&amp;b</Value><Value>c</Value></value>\
        </entry><entry><key>k2</key><value></value></entry></Sub></member><member>\
        <Name>two</Name></member></Items><NamedItems><Entry>n1</Entry><Entry>n&apos;2</Entry>\
        </NamedItems><Nested><member><Value>x</Value><Value>y</Value></member><member>\
        </member><member><Value>z</Value></member></Nested><Number>7</Number>\
        <Ratio>0.5</Ratio><Tags><entry><key>t&amp;1</key><value><Name>v&#xD;</Name></value>\
        </entry><entry><key>t2</key><value></value></entry></Tags><Text>{T}</Text>\
        <When>2023-11-14T22:13:20.124Z</When><WhenText>2023-11-14T22:13:20Z</WhenText>\
        </TrickyResult><ResponseMetadata><RequestId>rid&lt;&amp;&gt;</RequestId>\
        </ResponseMetadata></TrickyResponse>",
    );
    assert_eq!(xml, expected);
    let xml = utf8(encode_response(
        &model,
        "Wrapped",
        &json!({"Text": "w"}),
        "r",
    ));
    let expected = pinned(
        "<WrappedResponse xmlns=\"http://tricky.example/doc/2020-01-01/\"><CustomWrapper>\
        <Text>w</Text></CustomWrapper><ResponseMetadata><RequestId>r</RequestId>\
        </ResponseMetadata></WrappedResponse>",
    );
    assert_eq!(xml, expected);
}

#[test]
fn pins_the_xml_of_real_answers_and_errors() {
    let out = json!({"Messages": [{
        "MessageId": "m1",
        "ReceiptHandle": "rh+/=",
        "MD5OfBody": "d41d8cd98f00b204e9800998ecf8427e",
        "Body": TRICKY_TEXT,
        "Attributes": {"SenderId": "000000000000", "SentTimestamp": "1700000000000"},
        "MessageAttributes": {
            "bin": {"DataType": "Binary", "BinaryValue": "AAEC/w=="},
            "s&<": {"DataType": "String.custom", "StringValue": TRICKY_TEXT},
            "list": {"DataType": "String", "StringListValues": ["a", "b<"],
                     "BinaryListValues": ["AA=="]}
        }
    }]});
    let expected = pinned(
        "<ReceiveMessageResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">\
        <ReceiveMessageResult><Message><Attribute><Name>SenderId</Name>\
        <Value>000000000000</Value></Attribute><Attribute><Name>SentTimestamp</Name>\
        <Value>1700000000000</Value></Attribute><Body>{T}</Body>\
        <MD5OfBody>d41d8cd98f00b204e9800998ecf8427e</MD5OfBody><MessageAttribute>\
        <Name>bin</Name><Value><BinaryValue>AAEC/w==</BinaryValue>\
        <DataType>Binary</DataType></Value></MessageAttribute><MessageAttribute>\
        <Name>s&amp;&lt;</Name><Value><DataType>String.custom</DataType>\
        <StringValue>{T}</StringValue></Value></MessageAttribute><MessageAttribute>\
        <Name>list</Name><Value><BinaryListValue>AA==</BinaryListValue>\
        <DataType>String</DataType><StringListValue>a</StringListValue>\
        <StringListValue>b&lt;</StringListValue></Value></MessageAttribute>\
        <MessageId>m1</MessageId><ReceiptHandle>rh+/=</ReceiptHandle></Message>\
        </ReceiveMessageResult><ResponseMetadata><RequestId>rid</RequestId>\
        </ResponseMetadata></ReceiveMessageResponse>",
    );
    assert_eq!(
        utf8(encode_response(&SQS, "ReceiveMessage", &out, "rid")),
        expected
    );

    let out = json!({"Attributes": {"Policy": "{\"a\":\"b\"}", "DisplayName": TRICKY_TEXT}});
    let expected = pinned(
        "<GetTopicAttributesResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">\
        <GetTopicAttributesResult><Attributes><entry><key>Policy</key>\
        <value>{&quot;a&quot;:&quot;b&quot;}</value></entry><entry><key>DisplayName</key>\
        <value>{T}</value></entry></Attributes></GetTopicAttributesResult><ResponseMetadata>\
        <RequestId>rid</RequestId></ResponseMetadata></GetTopicAttributesResponse>",
    );
    assert_eq!(
        utf8(encode_response(&SNS, "GetTopicAttributes", &out, "rid")),
        expected
    );

    let out = json!({"Topics": [{"TopicArn": "arn:1"}, {"TopicArn": "arn:2"}], "NextToken": "n"});
    let expected = pinned(
        "<ListTopicsResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">\
        <ListTopicsResult><NextToken>n</NextToken><Topics><member><TopicArn>arn:1</TopicArn>\
        </member><member><TopicArn>arn:2</TopicArn></member></Topics></ListTopicsResult>\
        <ResponseMetadata><RequestId>rid</RequestId></ResponseMetadata></ListTopicsResponse>",
    );
    assert_eq!(
        utf8(encode_response(&SNS, "ListTopics", &out, "rid")),
        expected
    );

    let code = "AWS.SimpleQueueService.NonExistentQueue";
    let expected = pinned(
        "<ErrorResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><Error>\
        <Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code>\
        <Message>{T}</Message><Detail/></Error><RequestId>rid&amp;</RequestId>\
        </ErrorResponse>",
    );
    assert_eq!(
        utf8(encode_error(Some(&SQS), code, true, TRICKY_TEXT, "rid&")),
        expected
    );
    let expected = pinned(
        "<ErrorResponse><Error><Type>Receiver</Type><Code>InvalidAction</Code>\
        <Message>m</Message><Detail/></Error><RequestId>r</RequestId></ErrorResponse>",
    );
    assert_eq!(
        utf8(encode_error(None, "InvalidAction", false, "m", "r")),
        expected
    );
    // SNS's errors have no Detail element (SQS's above keep theirs).
    let expected = pinned(
        "<ErrorResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"><Error>\
        <Type>Sender</Type><Code>NotFound</Code><Message>Topic does not exist</Message>\
        </Error><RequestId>r</RequestId></ErrorResponse>",
    );
    assert_eq!(
        utf8(encode_error(
            Some(&SNS),
            "NotFound",
            true,
            "Topic does not exist",
            "r"
        )),
        expected
    );
}

/// The texts of every `<tag>` in `xml`, as an XML parser hands them to a client.
fn parsed_texts(xml: &[u8], tag: &str) -> Vec<String> {
    use quick_xml::XmlVersion::Implicit1_0;
    let mut reader = quick_xml::Reader::from_reader(xml);
    let (mut buf, mut texts, mut inside) = (Vec::new(), Vec::new(), false);
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) if e.name().as_ref() == tag => {
                inside = true;
                texts.push(String::new());
            }
            Event::End(e) if e.name().as_ref() == tag => inside = false,
            Event::Text(t) if inside => texts
                .last_mut()
                .unwrap()
                .push_str(&t.xml_content(Implicit1_0)),
            Event::GeneralRef(r) if inside => {
                let text = texts.last_mut().unwrap();
                match r.resolve_char_ref().expect("valid reference") {
                    Some(c) => text.push(c),
                    None => text
                        .push_str(quick_xml::escape::resolve_predefined_entity(&r).expect("known")),
                }
            }
            Event::Eof => return texts,
            _ => {}
        }
        buf.clear();
    }
}

#[test]
fn text_reaches_a_parser_unchanged() {
    let body = "a<b>&c \"q\" 'a' x\r\ny\rz\t\r\r é 😀 ]]> end\r";
    let out = json!({"Messages": [{
        "Body": body,
        "MessageAttributes": {body: {"DataType": "String", "StringValue": body}}
    }]});
    let xml = encode_response(&SQS, "ReceiveMessage", &out, body);
    for tag in ["Body", "StringValue", "Name", "RequestId"] {
        assert_eq!(parsed_texts(&xml, tag), [body], "{tag}");
    }
    let xml = encode_error(Some(&SNS), "InvalidParameter", true, body, "r");
    assert_eq!(parsed_texts(&xml, "Message"), [body]);
}

#[test]
fn encodes_flattened_lists_and_maps() {
    let out = json!({
        "Messages": [{
            "MessageId": "m1",
            "Body": "a<b & \r",
            "Attributes": {"SenderId": "x"}
        }]
    });
    let xml = utf8(encode_response(&SQS, "ReceiveMessage", &out, "rid"));
    assert!(
        xml.contains(
            "<ReceiveMessageResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">"
        )
    );
    assert!(xml.contains(
        "<ReceiveMessageResult><Message><Attribute><Name>SenderId</Name><Value>x</Value></Attribute>\
         <Body>a&lt;b &amp; &#xD;</Body><MessageId>m1</MessageId></Message></ReceiveMessageResult>"
    ), "{xml}");
    assert!(xml.ends_with(
        "<ResponseMetadata><RequestId>rid</RequestId></ResponseMetadata></ReceiveMessageResponse>"
    ));
    let xml = utf8(encode_response(
        &SQS,
        "ListQueues",
        &json!({"QueueUrls": ["a", "b"]}),
        "r",
    ));
    assert!(xml.contains(
        "<ListQueuesResult><QueueUrl>a</QueueUrl><QueueUrl>b</QueueUrl></ListQueuesResult>"
    ));
    let xml = utf8(encode_response(&SQS, "DeleteQueue", &json!({}), "r"));
    assert!(xml.contains("<DeleteQueueResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><ResponseMetadata>"));
}
