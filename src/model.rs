//! AWS API models (botocore's service models, see `tools/build-models.py`): the operations, their
//! input and output shapes and the error table that drive the protocol front-ends.
//! A leaf: it depends on nothing of the emulator.

use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

/// A model's table by name. Looked up on every request (operation, input shape, each required
/// member's shape): foldhash, several times quicker than SipHash on short keys, and still seeded
/// per process.
pub(crate) type Names<V> = HashMap<String, V, foldhash::fast::RandomState>;

#[derive(Debug, Deserialize)]
pub struct Model {
    pub metadata: Metadata,
    pub operations: Names<Operation>,
    pub shapes: Names<Shape>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    pub api_version: String,
    pub endpoint_prefix: String,
    /// The wire protocols (`query`, `json`); older models name only one, in [`Metadata::protocol`].
    #[serde(default)]
    pub protocols: Vec<String>,
    pub protocol: Option<String>,
    pub target_prefix: Option<String>,
    pub xml_namespace: Option<String>,
    pub aws_query_compatible: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
pub struct Operation {
    pub input: Option<ShapeRef>,
    pub output: Option<ShapeRef>,
    /// Where a REST protocol (restJson1) serves the operation.
    pub http: Option<Http>,
}

/// The `http` trait of an operation: its method, path template (`/schedules/{Name}`, with greedy
/// labels like `{Key+}`) and the status of a successful answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Http {
    pub method: String,
    pub request_uri: String,
    pub response_code: Option<u16>,
}

/// Where a member travels in a REST protocol; `None` on a reference means the JSON body.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Location {
    Uri,
    Querystring,
    Header,
    /// A map of the headers whose names start with the reference's `locationName`.
    Headers,
    #[serde(rename = "statusCode")]
    StatusCode,
}

/// A reference to a shape with the serialization traits of that use of it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShapeRef {
    pub shape: String,
    pub location_name: Option<String>,
    pub location: Option<Location>,
    #[serde(default)]
    pub flattened: bool,
    pub result_wrapper: Option<String>,
    /// Whether the shape it names has a required member at some depth ([`Shape::requires`]).
    #[serde(skip)]
    pub requires: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shape {
    #[serde(rename = "type")]
    pub kind: ShapeKind,
    #[serde(default)]
    pub members: BTreeMap<String, ShapeRef>,
    #[serde(default)]
    pub required: Vec<String>,
    pub member: Option<Box<ShapeRef>>,
    pub key: Option<Box<ShapeRef>>,
    pub value: Option<Box<ShapeRef>>,
    #[serde(default)]
    pub flattened: bool,
    /// The wire name of every use of this shape that gives none itself (botocore's rule).
    pub location_name: Option<String>,
    pub error: Option<ErrorTrait>,
    /// REST: the member that is the whole body (instead of the members without a location).
    pub payload: Option<String>,
    /// Whether a value of this shape can lack a required member: the shape or one it holds,
    /// at any depth, has one. Worked out once when the model loads, so that checking a request
    /// walks only the members that can be missing something.
    #[serde(skip)]
    pub requires: bool,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ShapeKind {
    Structure,
    List,
    Map,
    String,
    Integer,
    Long,
    Boolean,
    Double,
    Float,
    Timestamp,
    Blob,
}

/// The facts of an error shape: its Query code (`awsQueryError`) and HTTP status.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorTrait {
    pub code: Option<String>,
    pub http_status_code: Option<u16>,
    #[serde(default)]
    pub sender_fault: bool,
}

impl Shape {
    /// The shapes this one holds: its members, its list member, its map key and value.
    fn refs(&self) -> impl Iterator<Item = &ShapeRef> {
        (self.members.values())
            .chain(self.member.as_deref())
            .chain(self.key.as_deref())
            .chain(self.value.as_deref())
    }
}

impl Model {
    fn load(json: &str) -> Model {
        let mut model: Model =
            serde_json::from_str(json).expect("models/*.json is a valid service model");
        model.mark_requires();
        model
    }

    /// Sets [`Shape::requires`] and [`ShapeRef::requires`]: a shape requires when it has a
    /// required member or holds a shape that requires, found by repeating until nothing changes
    /// (shapes may hold themselves).
    fn mark_requires(&mut self) {
        let mut requiring: HashSet<String> = (self.shapes.iter())
            .filter(|(_, shape)| !shape.required.is_empty())
            .map(|(name, _)| name.clone())
            .collect();
        loop {
            let found: Vec<String> = (self.shapes.iter())
                .filter(|(name, shape)| {
                    !requiring.contains(*name) && shape.refs().any(|r| requiring.contains(&r.shape))
                })
                .map(|(name, _)| name.clone())
                .collect();
            if found.is_empty() {
                break;
            }
            requiring.extend(found);
        }
        for (name, shape) in &mut self.shapes {
            shape.requires = requiring.contains(name);
            let refs = (shape.members.values_mut())
                .chain(shape.member.as_deref_mut())
                .chain(shape.key.as_deref_mut())
                .chain(shape.value.as_deref_mut());
            for r in refs {
                r.requires = requiring.contains(&r.shape);
            }
        }
    }

    pub fn shape(&self, name: &str) -> &Shape {
        &self.shapes[name]
    }

    /// The wire name of a structure member: the reference's `locationName`, else the target
    /// shape's, else the member name (e.g. TagQueue's `Tags` travels as `Tag.N.Key` in Query).
    pub fn member_name<'a>(&'a self, name: &'a str, member: &'a ShapeRef) -> &'a str {
        member
            .location_name
            .as_deref()
            .or(self.shape(&member.shape).location_name.as_deref())
            .unwrap_or(name)
    }

    /// The Query code of an error shape (`QueueDoesNotExist` →
    /// `AWS.SimpleQueueService.NonExistentQueue`); codes the model does not know stand for
    /// themselves.
    pub fn query_code<'a>(&'a self, code: &'a str) -> &'a str {
        let error = self.shapes.get(code).and_then(|s| s.error.as_ref());
        error.and_then(|e| e.code.as_deref()).unwrap_or(code)
    }

    pub fn speaks(&self, protocol: &str) -> bool {
        let mut all = self
            .metadata
            .protocols
            .iter()
            .chain(&self.metadata.protocol);
        all.any(|p| p == protocol)
    }
}

pub(crate) static SQS: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/sqs.json")));
pub(crate) static SNS: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/sns.json")));
pub(crate) static EVENTS: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/events.json")));
/// The custom event bus API: switchyard's own model (compat/models/eventsv2), stripped like the others.
pub(crate) static EVENTSV2: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/eventsv2.json")));
pub(crate) static STS: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/sts.json")));
/// IAM: only the role and policy operations switchyard serves (`tools/build-models.py` trims it).
pub(crate) static IAM: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/iam.json")));
/// EventBridge Scheduler (restJson1).
pub(crate) static SCHEDULER: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/scheduler.json")));
/// EventBridge Pipes (restJson1).
pub(crate) static PIPES: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/pipes.json")));
/// AWS Lambda: the operations switchyard serves (tools/build-models.py, LAMBDA_OPERATIONS).
pub(crate) static LAMBDA: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/lambda.json")));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_load_and_refer_only_to_shapes_they_define() {
        let all = [
            &*SQS,
            &*STS,
            &*SNS,
            &*EVENTS,
            &*EVENTSV2,
            &*IAM,
            &*SCHEDULER,
            &*PIPES,
        ];
        for model in all {
            let refs = model.shapes.values().flat_map(|s| {
                let nested = [&s.member, &s.key, &s.value];
                s.members
                    .values()
                    .chain(nested.into_iter().flatten().map(|b| &**b))
            });
            for r in refs {
                assert!(model.shapes.contains_key(&r.shape), "{}", r.shape);
            }
        }
        assert_eq!(SQS.operations.len(), 23);
        assert!(SQS.speaks("query") && SQS.speaks("json"));
        assert_eq!(IAM.operations.len(), 23);
        let status: Location = serde_json::from_str("\"statusCode\"").unwrap();
        assert_eq!(status, Location::StatusCode);
        for model in [&*SCHEDULER, &*PIPES] {
            assert!(model.speaks("rest-json"));
            assert!(model.operations.values().all(|op| op.http.is_some()));
        }
    }

    #[test]
    fn a_shape_requires_when_it_or_a_shape_it_holds_has_a_required_member() {
        let send = SQS.shape("SendMessageRequest");
        assert!(send.requires);
        // MessageAttributes: a map whose values require DataType.
        assert!(send.members["MessageAttributes"].requires);
        assert!(SQS.shape("MessageBodyAttributeMap").requires);
        assert!(!send.members["MessageBody"].requires);
        assert!(!SQS.shape("ListQueuesRequest").requires);
        // Through a list: a batch entry requires its Id.
        assert!(SQS.shape("SendMessageBatchRequestEntryList").requires);

        // A shape that holds itself, and one that reaches a requirement only through it.
        let model = Model::load(
            r#"{"metadata": {"apiVersion": "1", "endpointPrefix": "x"}, "operations": {},
                "shapes": {
                  "Node": {"type": "structure", "members": {
                    "Next": {"shape": "Node"}, "Leaf": {"shape": "Leaf"}}},
                  "Leaf": {"type": "structure", "required": ["Id"],
                           "members": {"Id": {"shape": "S"}}},
                  "Loop": {"type": "structure", "members": {"Again": {"shape": "Loop"}}},
                  "S": {"type": "string"}}}"#,
        );
        assert!(model.shape("Node").requires);
        assert!(model.shape("Node").members["Next"].requires);
        assert!(!model.shape("Loop").requires);
        assert!(!model.shape("S").requires);
    }
}
