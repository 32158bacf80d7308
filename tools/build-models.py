#!/usr/bin/env python3
"""Builds models/<service>.json, the AWS API models switchyard's protocol front-ends are driven by.

They are botocore's service models (Apache-2.0, the same facts the AWS SDKs are generated from)
with the documentation stripped. SQS moved from AWS Query to AWS JSON 1.0 in 2024; the current model
no longer carries the Query serialization traits that older SDKs and the v1 CLI still rely on, so
those traits (locationName, flattened, resultWrapper, Query error codes) are overlaid from the last
botocore release whose SQS model was a Query model.

The custom-bus API (eventsv2) has no botocore model: it is built from the one switchyard ships for
boto3 and the AWS CLI (compat/models/eventsv2/<version>/service-2.json), stripped the same way.

IAM's model is large (160-odd operations); switchyard serves its roles and policies only, so
models/iam.json keeps those operations (IAM_OPERATIONS) and the shapes they reach, nothing else.
Lambda's likewise keeps the operations switchyard serves (LAMBDA_OPERATIONS).

Usage: tools/build-models.py              (downloads the pinned botocore wheels with pip into a temp dir)
       tools/build-models.py eventsv2     (only the models shipped in compat/models; no download)
       tools/build-models.py iam          (one downloaded model: the shipped ones and iam)
       tools/build-models.py lambda       (the same for lambda)
"""
import gzip, json, os, subprocess, sys, tempfile, zipfile

CURRENT = "1.43.11"
LAST_SQS_QUERY = "1.34.70"
SERVICES = ["sqs", "sts", "sns", "events", "iam", "scheduler", "pipes", "lambda"]
# The IAM operations switchyard serves (src/services/iam/); models/iam.json holds only these.
IAM_OPERATIONS = [
    "CreateRole", "GetRole", "ListRoles", "UpdateAssumeRolePolicy", "DeleteRole",
    "PutRolePolicy", "GetRolePolicy", "ListRolePolicies", "DeleteRolePolicy",
    "AttachRolePolicy", "DetachRolePolicy", "ListAttachedRolePolicies",
    "CreatePolicy", "GetPolicy", "GetPolicyVersion", "ListPolicies", "DeletePolicy",
    "TagRole", "UntagRole", "ListRoleTags", "TagPolicy", "UntagPolicy", "ListPolicyTags",
]
# The Lambda operations switchyard serves (src/services/lambda/); models/lambda.json holds only
# these and the shapes they reach.
LAMBDA_OPERATIONS = [
    "CreateFunction", "GetFunction", "GetFunctionConfiguration", "ListFunctions", "DeleteFunction",
    "UpdateFunctionCode", "UpdateFunctionConfiguration", "Invoke",
    "PutFunctionEventInvokeConfig", "GetFunctionEventInvokeConfig",
    "UpdateFunctionEventInvokeConfig", "DeleteFunctionEventInvokeConfig",
    "ListFunctionEventInvokeConfigs",
    "CreateEventSourceMapping", "GetEventSourceMapping", "UpdateEventSourceMapping",
    "DeleteEventSourceMapping", "ListEventSourceMappings",
    "AddPermission", "RemovePermission", "GetPolicy",
    "PutFunctionConcurrency", "GetFunctionConcurrency", "DeleteFunctionConcurrency",
    "PublishVersion", "ListVersionsByFunction",
    "CreateAlias", "GetAlias", "UpdateAlias", "DeleteAlias", "ListAliases",
    "PublishLayerVersion", "GetLayerVersion", "ListLayers", "ListLayerVersions",
    "DeleteLayerVersion", "TagResource", "UntagResource", "ListTags", "GetAccountSettings",
]

# awsQueryError traits of SQS error shapes added after the last Query release, from the Smithy
# model (aws/api-models-aws sqs-2012-11-05.json).
SQS_LATER_ERRORS = {
    "InvalidAddress": ("InvalidAddress", 404),
    "InvalidAttributeName": ("InvalidAttributeName", 400),
    "InvalidAttributeValue": ("InvalidAttributeValue", 400),
    "InvalidIdFormat": ("InvalidIdFormat", 400),
    "InvalidMessageContents": ("InvalidMessageContents", 400),
    "InvalidSecurity": ("InvalidSecurity", 403),
    "KmsAccessDenied": ("KMS.AccessDeniedException", 400),
    "KmsDisabled": ("KMS.DisabledException", 400),
    "KmsInvalidKeyUsage": ("KMS.InvalidKeyUsageException", 400),
    "KmsInvalidState": ("KMS.InvalidStateException", 400),
    "KmsNotFound": ("KMS.NotFoundException", 400),
    "KmsOptInRequired": ("KMS.OptInRequired", 403),
    "KmsThrottled": ("KMS.ThrottlingException", 400),
    "ReceiptHandleIsInvalid": ("ReceiptHandleIsInvalid", 404),
    "RequestThrottled": ("RequestThrottled", 403),
}
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models")
COMPAT_MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat", "models")
SHIPPED = ["eventsv2"]

KEEP_META = ["apiVersion", "protocol", "protocols", "jsonVersion", "targetPrefix", "xmlNamespace",
             "signingName", "endpointPrefix", "awsQueryCompatible", "serviceId"]
DROP = {"documentation", "deprecated", "deprecatedMessage", "box", "wrapper", "documentationUrl",
        "idempotencyToken", "sensitive", "union", "retryable", "contextParam", "streaming",
        "requiresLength", "event", "eventstream", "hostLabel", "jsonvalue"}


def wheel(version, tmp):
    d = os.path.join(tmp, version)
    subprocess.check_call([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                           f"botocore=={version}", "-d", d])
    return zipfile.ZipFile(os.path.join(d, os.listdir(d)[0]))


def load(z, service):
    prefix = f"botocore/data/{service}/"
    names = sorted(n for n in z.namelist() if n.startswith(prefix) and "/service-2.json" in n)
    data = z.read(names[-1])
    return json.loads(gzip.decompress(data) if names[-1].endswith(".gz") else data)


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in DROP}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def overlay_query(model, query):
    """Copies the Query serialization traits of `query` onto `model` (same service)."""
    model["metadata"]["xmlNamespace"] = query["metadata"]["xmlNamespace"]
    model["metadata"]["protocols"] = ["json", "query"]
    for name, op in model["operations"].items():
        old = query["operations"].get(name)
        if old and "output" in old and "resultWrapper" in old["output"]:
            op["output"]["resultWrapper"] = old["output"]["resultWrapper"]
    for name, shape in model["shapes"].items():
        old = query["shapes"].get(name)
        if not old:
            continue
        for k in ("flattened", "locationName", "error"):
            if k in old:
                shape[k] = old[k]
        for ref in ("member", "key", "value"):
            if ref in old and ref in shape and "locationName" in old[ref]:
                shape[ref]["locationName"] = old[ref]["locationName"]
        for m, ms in shape.get("members", {}).items():
            om = old.get("members", {}).get(m, {})
            for k in ("locationName", "flattened"):
                if k in om:
                    ms[k] = om[k]


def trim(model, operations):
    """Keeps `operations` and the shapes they reach (input, output, errors), nothing else."""
    ops = {name: model["operations"][name] for name in operations}
    keep, todo = set(), []
    for op in ops.values():
        todo += [op[k]["shape"] for k in ("input", "output") if k in op]
        todo += [e["shape"] for e in op.get("errors", [])]
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        shape = model["shapes"][name]
        refs = list(shape.get("members", {}).values())
        refs += [shape[k] for k in ("member", "key", "value") if k in shape]
        todo += [r["shape"] for r in refs]
    model["operations"] = ops
    model["shapes"] = {k: v for k, v in model["shapes"].items() if k in keep}


def write(service, model):
    out = {
        "metadata": {k: model["metadata"][k] for k in KEEP_META if k in model["metadata"]},
        "operations": strip(model["operations"]),
        "shapes": strip(model["shapes"]),
    }
    with open(os.path.join(OUT, f"{service}.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(service, len(out["operations"]), "operations")


def shipped(service):
    d = os.path.join(COMPAT_MODELS, service)
    version = sorted(os.listdir(d))[-1]
    with open(os.path.join(d, version, "service-2.json")) as f:
        return json.load(f)


def main():
    for service in SHIPPED:
        write(service, shipped(service))
    if sys.argv[1:] == SHIPPED:
        return
    services = sys.argv[1:] or SERVICES
    with tempfile.TemporaryDirectory() as tmp:
        current = wheel(CURRENT, tmp)
        old = wheel(LAST_SQS_QUERY, tmp) if "sqs" in services else None
        for service in services:
            model = load(current, service)
            if service == "sqs":
                overlay_query(model, load(old, service))
                for shape, (code, status) in SQS_LATER_ERRORS.items():
                    model["shapes"][shape].setdefault(
                        "error", {"code": code, "httpStatusCode": status, "senderFault": True})
            if service == "iam":
                trim(model, IAM_OPERATIONS)
            if service == "lambda":
                trim(model, LAMBDA_OPERATIONS)
            write(service, model)


if __name__ == "__main__":
    main()
