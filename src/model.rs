//! AWS API models (botocore's service models, see `tools/build-models.py`): the operations, their
//! input and output shapes and the error table that drive the protocol front-ends.
//! A leaf: it depends on nothing of the emulator.

use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

#[derive(Debug, Deserialize)]
pub struct Model {
    pub metadata: Metadata,
    pub operations: HashMap<String, Operation>,
    pub shapes: HashMap<String, Shape>,
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

impl Model {
    fn load(json: &str) -> Model {
        serde_json::from_str(json).expect("models/*.json is a valid service model")
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

pub static SQS: LazyLock<Model> = LazyLock::new(|| Model::load(include_str!("../models/sqs.json")));
pub static SNS: LazyLock<Model> = LazyLock::new(|| Model::load(include_str!("../models/sns.json")));
pub static EVENTS: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/events.json")));
/// The custom event bus API: switchyard's own model (compat/models/eventsv2), stripped like the others.
pub static EVENTSV2: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/eventsv2.json")));
pub static STS: LazyLock<Model> = LazyLock::new(|| Model::load(include_str!("../models/sts.json")));
/// IAM: only the role and policy operations switchyard serves (`tools/build-models.py` trims it).
pub static IAM: LazyLock<Model> = LazyLock::new(|| Model::load(include_str!("../models/iam.json")));
/// EventBridge Scheduler (restJson1).
pub static SCHEDULER: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/scheduler.json")));
/// EventBridge Pipes (restJson1).
pub static PIPES: LazyLock<Model> =
    LazyLock::new(|| Model::load(include_str!("../models/pipes.json")));

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
        for model in [&*SCHEDULER, &*PIPES] {
            assert!(model.speaks("rest-json"));
            assert!(model.operations.values().all(|op| op.http.is_some()));
        }
    }
}
