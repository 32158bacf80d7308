"""switchyard's runtime loop for Python functions (python3.* runtimes).

A client of the Lambda Runtime API (AWS_LAMBDA_RUNTIME_API) that gives the function's handler
what AWS's Python runtime gives it: the event (the payload, decoded from JSON), a context object,
and AWS's error documents ({"errorMessage", "errorType", "requestId", "stackTrace"}).
switchyard writes this file into LAMBDA_RUNTIME_DIR and runs it with `python3 -u` in the code
folder. It ends as soon as the Runtime API is gone (switchyard stopped or killed).
"""

import base64
import decimal
import http.client
import importlib
import json
import logging
import os
import sys
import time
import traceback

API_PREFIX = "/2018-06-01/runtime"
LOOP_FILE = os.path.abspath(__file__)
CURRENT_REQUEST_ID = None


class Fault(Exception):
    """An error of the runtime's own (AWS's Runtime.* error types)."""

    def __init__(self, error_type, message, trace=None):
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.trace = trace or []


class RuntimeApi:
    """One keep-alive connection to the Runtime API, opened again after a failure."""

    def __init__(self, address):
        host, _, port = address.rpartition(":")
        self.host = host
        self.port = int(port)
        self.connection = None

    def call(self, method, path, body=None, headers=None):
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port)
        try:
            self.connection.request(method, API_PREFIX + path, body=body, headers=headers or {})
            response = self.connection.getresponse()
            return response, response.read()
        except Exception:
            self.connection.close()
            self.connection = None
            raise

    def post(self, path, document, error_type=None):
        headers = {"Content-Type": "application/json"}
        if error_type:
            headers["Lambda-Runtime-Function-Error-Type"] = error_type
        what = "error" if error_type else "success"
        try:
            response, body = self.call("POST", path, document, headers)
        except Exception as e:
            sys.stderr.write("Failed to post handler %s response: %s\n" % (what, e))
            return
        if response.status != 202:
            sys.stderr.write(
                "Failed to post handler %s response. Http response code: %d. %s\n"
                % (what, response.status, body.decode("utf-8", "replace"))
            )


class CognitoIdentity:
    def __init__(self, identity):
        identity = identity or {}
        self.cognito_identity_id = identity.get("cognitoIdentityId")
        self.cognito_identity_pool_id = identity.get("cognitoIdentityPoolId")


class Client:
    def __init__(self, client):
        self.installation_id = client.get("installation_id")
        self.app_title = client.get("app_title")
        self.app_version_name = client.get("app_version_name")
        self.app_version_code = client.get("app_version_code")
        self.app_package_name = client.get("app_package_name")


class ClientContext:
    def __init__(self, context):
        self.client = Client(context["client"]) if context.get("client") else None
        self.custom = context.get("custom")
        self.env = context.get("env")


class LambdaContext:
    """The handler's second argument, with the attributes AWS's context object has."""

    def __init__(self, request_id, deadline_ms, invoked_arn, client_context, identity):
        self.aws_request_id = request_id
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME")
        self.function_version = os.environ.get("AWS_LAMBDA_FUNCTION_VERSION")
        self.invoked_function_arn = invoked_arn
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        self.log_group_name = os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME")
        self.log_stream_name = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME")
        self.client_context = ClientContext(client_context) if client_context else None
        self.identity = CognitoIdentity(identity)
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self):
        return max(int(self._deadline_ms - time.time() * 1000), 0)

    def log(self, message):
        sys.stdout.write(str(message))


def json_header(value):
    """A header holding JSON (or base64 JSON), decoded; None when absent or unreadable."""
    if not value:
        return None
    for text in (value, None):
        try:
            if text is None:
                text = base64.b64decode(value).decode("utf-8")
            return json.loads(text)
        except Exception:
            continue
    return None


def load_handler(name):
    """The handler function `name` names ("app.handler", "dir/app.handler", "pkg.mod.handler")."""
    try:
        module_name, function_name = name.rsplit(".", 1)
    except ValueError as e:
        raise Fault("Runtime.MalformedHandlerName", "Bad handler '%s': %s" % (name, e))
    if module_name.split(".")[0] in sys.builtin_module_names:
        raise Fault(
            "Runtime.BuiltInModuleConflict",
            "Cannot use built-in module %s as a handler module" % module_name,
        )
    try:
        module = importlib.import_module(module_name.replace("/", "."))
    except ImportError as e:
        raise Fault(
            "Runtime.ImportModuleError", "Unable to import module '%s': %s" % (module_name, e)
        )
    except SyntaxError as e:
        trace = ['  File "%s" Line %s\n    %s' % (e.filename, e.lineno, e.text)]
        raise Fault(
            "Runtime.UserCodeSyntaxError",
            "Syntax error in module '%s': %s" % (module_name, e),
            trace,
        )
    handler = getattr(module, function_name, None)
    if handler is None:
        fault = Fault(
            "Runtime.HandlerNotFound",
            "Handler '%s' missing on module '%s'" % (function_name, module_name),
        )

        def missing(event, context):
            raise fault

        return missing
    return handler


def error_document(error, request_id):
    """AWS's error document of an exception."""
    if isinstance(error, Fault):
        message, error_type, trace = error.message, error.error_type, error.trace
    else:
        frames = traceback.extract_tb(error.__traceback__)
        frames = [f for f in frames if os.path.abspath(f.filename) != LOOP_FILE]
        message, error_type = str(error), type(error).__name__
        trace = traceback.format_list(frames)
    return {
        "errorMessage": message,
        "errorType": error_type,
        "requestId": request_id,
        "stackTrace": trace,
    }


def log_error(document):
    lines = ["[ERROR] %s: %s" % (document["errorType"], document["errorMessage"])]
    lines.append("Traceback (most recent call last):")
    lines.extend(line.rstrip("\n") for line in document["stackTrace"])
    sys.stdout.write("\n".join(lines) + "\n")


def to_number(value):
    if isinstance(value, decimal.Decimal):
        return float(value)
    raise TypeError("Object of type %s is not JSON serializable" % type(value).__name__)


class RequestIdFilter(logging.Filter):
    def filter(self, record):
        record.aws_request_id = CURRENT_REQUEST_ID
        return True


def set_up_logging():
    """The root logger writes AWS's lines: [LEVEL] time request-id message."""
    formatter = logging.Formatter(
        "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s",
        "%Y-%m-%dT%H:%M:%S",
    )
    formatter.converter = time.gmtime
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(formatter)
    handler.addFilter(RequestIdFilter())
    logging.getLogger().addHandler(handler)


def flush():
    sys.stdout.flush()
    sys.stderr.flush()


def handle(api, handler, response, body):
    global CURRENT_REQUEST_ID
    request_id = response.getheader("Lambda-Runtime-Aws-Request-Id")
    CURRENT_REQUEST_ID = request_id
    trace_id = response.getheader("Lambda-Runtime-Trace-Id")
    if trace_id:
        os.environ["_X_AMZN_TRACE_ID"] = trace_id
    else:
        os.environ.pop("_X_AMZN_TRACE_ID", None)
    context = LambdaContext(
        request_id,
        int(response.getheader("Lambda-Runtime-Deadline-Ms") or 0),
        response.getheader("Lambda-Runtime-Invoked-Function-Arn"),
        json_header(response.getheader("Lambda-Runtime-Client-Context")),
        json_header(response.getheader("Lambda-Runtime-Cognito-Identity")),
    )
    try:
        try:
            event = json.loads(body)
        except ValueError as e:
            raise Fault("Runtime.UnmarshalError", "Unable to unmarshal input: %s" % e)
        result = handler(event, context)
        try:
            answer = json.dumps(result, default=to_number)
        except (TypeError, ValueError) as e:
            raise Fault("Runtime.MarshalError", "Unable to marshal response: %s" % e)
    except Exception as error:
        document = error_document(error, request_id)
        log_error(document)
        flush()
        path = "/invocation/%s/error" % request_id
        api.post(path, json.dumps(document), document["errorType"])
        return
    flush()
    api.post("/invocation/%s/response" % request_id, answer)


def main():
    api = RuntimeApi(os.environ["AWS_LAMBDA_RUNTIME_API"])
    # The handler's modules are found in the code folder, not in this loop's.
    sys.path[0] = os.environ.get("LAMBDA_TASK_ROOT", os.getcwd())
    set_up_logging()
    try:
        handler = load_handler(os.environ.get("_HANDLER", ""))
    except Exception as error:
        document = error_document(error, "")
        log_error(document)
        flush()
        api.post("/init/error", json.dumps(document), document["errorType"])
        os._exit(1)
    while True:
        try:
            response, body = api.call("GET", "/invocation/next")
        except Exception:
            # The Runtime API is gone: switchyard stopped. Threads the function started do not
            # keep the process.
            os._exit(0)
        if response.status != 200:
            os._exit(1)
        handle(api, handler, response, body)


if __name__ == "__main__":
    main()
