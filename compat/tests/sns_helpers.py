"""Helpers the SNS compat tests share (plain functions and one small class, not fixtures).

- `verify_signature`: checks an SNS message's Signature the way AWS documents it
  (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html): fetch the X.509
  certificate at SigningCertURL, build the string to sign from the signed fields in byte order
  (name, newline, value, newline), verify RSA PKCS#1 v1.5 with SHA1 (SignatureVersion 1) or SHA256 (2).
- `Recorder`: a tiny HTTP endpoint (http.server on 127.0.0.1, in a thread) that answers 200 and
  records every request, to subscribe as an `http` endpoint.
- `sqs_queue`: an SQS queue whose policy lets the topic send to it, as AWS requires.
"""

import base64
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import requests
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

ACCOUNT = "000000000000"
REGION = "us-east-1"

# The fields each kind of message signs (docs/sns.md, "Signatures"); sorted again below anyway.
SIGNED_FIELDS = {
    "Notification": ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"],
    "SubscriptionConfirmation": ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"],
    "UnsubscribeConfirmation": ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"],
}

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

_http = requests.Session()
_http.trust_env = False


def topic_arn(name, account=ACCOUNT):
    return f"arn:aws:sns:{REGION}:{account}:{name}"


def string_to_sign(message):
    """The canonical string AWS signs: for each signed field present, `name\\nvalue\\n`, by name in
    byte order. Values are the decoded strings, not their JSON-escaped form."""
    names = sorted(SIGNED_FIELDS[message["Type"]], key=lambda n: n.encode("utf-8"))
    return "".join(f"{name}\n{message[name]}\n" for name in names if name in message)


def certificate(url):
    r = _http.get(url, timeout=30)
    assert r.status_code == 200, f"GET SigningCertURL {url}: {r.status_code} {r.text[:200]}"
    return x509.load_pem_x509_certificate(r.content)


def verify_signature(message, expected_version=None):
    """Raises AssertionError unless `message` (a decoded SNS JSON document) carries a valid signature.
    Returns the certificate it was verified with."""
    version = message["SignatureVersion"]
    if expected_version is not None:
        assert version == expected_version, message
    algorithm = {"1": hashes.SHA1(), "2": hashes.SHA256()}[version]
    cert = certificate(message["SigningCertURL"])
    signature = base64.b64decode(message["Signature"], validate=True)
    data = string_to_sign(message).encode("utf-8")
    try:
        cert.public_key().verify(signature, data, padding.PKCS1v15(), algorithm)
    except InvalidSignature:
        raise AssertionError(f"signature (version {version}) does not verify over {data!r}") from None
    return cert


def signature_fails(message, algorithm):
    """True if the signature does NOT verify with `algorithm` (for the negative checks)."""
    cert = certificate(message["SigningCertURL"])
    try:
        cert.public_key().verify(
            base64.b64decode(message["Signature"]),
            string_to_sign(message).encode("utf-8"),
            padding.PKCS1v15(),
            algorithm,
        )
    except InvalidSignature:
        return True
    return False


def query_param(url, name):
    values = parse_qs(urlsplit(url).query).get(name, [])
    assert len(values) == 1, f"{url}: expected one {name} parameter"
    return values[0]


def http_get(url):
    return _http.get(url, timeout=30)


def sqs_queue(sqs, name, topic, **attributes):
    """Creates an SQS queue that lets `topic` (an ARN) send to it, and returns (url, arn)."""
    url = sqs.create_queue(QueueName=name, Attributes={k: str(v) for k, v in attributes.items()})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "sns.amazonaws.com"},
                "Action": "sqs:SendMessage",
                "Resource": arn,
                "Condition": {"ArnEquals": {"aws:SourceArn": topic}},
            }
        ],
    }
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps(policy)})
    return url, arn


def receive_and_delete(sqs, queue_url, **kwargs):
    """Every message visible now (short polls until empty), deleted as received."""
    out = []
    for _ in range(100):
        got = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0, **kwargs).get(
            "Messages", []
        )
        if not got:
            return out
        for m in got:
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"])
        out.extend(got)
    raise AssertionError(f"{queue_url} still had messages after 100 receives")


class Recorded:
    def __init__(self, method, path, headers, body):
        self.method = method
        self.path = path
        self.headers = headers  # lower-cased names
        self.body = body  # str

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return f"<{self.method} {self.path} {self.headers.get('x-amz-sns-message-type')} {self.body[:120]!r}>"


class Recorder:
    """An HTTP endpoint on 127.0.0.1 that answers every request 200 and keeps it."""

    def __init__(self):
        self.requests = []
        self.lock = threading.Lock()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _record(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8") if length else ""
                headers = {k.lower(): v for k, v in self.headers.items()}
                with recorder.lock:
                    recorder.requests.append(Recorded(self.command, self.path, headers, body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = _record
            do_GET = _record
            do_PUT = _record

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self):
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def take(self):
        """The requests recorded so far, and forget them."""
        with self.lock:
            out, self.requests = self.requests, []
        return out
