// switchyard's runtime loop for Node.js functions (nodejs* runtimes).
//
// A client of the Lambda Runtime API (AWS_LAMBDA_RUNTIME_API) that gives the function's handler
// what AWS's Node.js runtime gives it: the event (the payload, decoded from JSON), a context
// object, async handlers and callback-style ones (three arguments), console lines in AWS's shape
// (time, request id, level, message) and AWS's error documents ({"errorType", "errorMessage",
// "trace"}). The handler's module is loaded by dynamic import of a file URL, trying .js, .mjs and
// .cjs as AWS does, so CommonJS and ES modules both work. switchyard writes this file into
// LAMBDA_RUNTIME_DIR and runs it with `node` in the code folder. It ends as soon as the Runtime
// API is gone (switchyard stopped or killed).

import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import util from "node:util";

const PREFIX = "/2018-06-01/runtime";
const LOOP_FILE = fileURLToPath(import.meta.url);
const address = process.env.AWS_LAMBDA_RUNTIME_API || "";
const host = address.slice(0, address.lastIndexOf(":"));
const port = Number(address.slice(address.lastIndexOf(":") + 1));
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

let currentRequestId = undefined;
// The invocation under way has not been answered yet.
let unanswered = false;

/** An error of the runtime's own (AWS's Runtime.* error types). */
class Fault extends Error {
  constructor(errorType, message) {
    super(message);
    this.name = errorType;
  }
}

function call(method, apiPath, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const options = { host, port, method, path: PREFIX + apiPath, agent, headers };
    const request = http.request(options, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () =>
        resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    request.on("error", reject);
    request.end(body);
  });
}

async function post(apiPath, body, errorType) {
  const headers = { "Content-Type": "application/json" };
  if (errorType) headers["Lambda-Runtime-Function-Error-Type"] = errorType;
  const what = errorType ? "error" : "success";
  try {
    const answer = await call("POST", apiPath, body, headers);
    if (answer.status !== 202) {
      process.stderr.write(
        `Failed to post handler ${what} response. Http response code: ${answer.status}. ${answer.body}\n`,
      );
    }
  } catch (error) {
    process.stderr.write(`Failed to post handler ${what} response: ${error}\n`);
  }
}

// console writes AWS's lines: time, request id, level, message.
function writer(level) {
  return (...args) => {
    const line = `${new Date().toISOString()}\t${currentRequestId}\t${level}\t${util.format(...args)}\n`;
    process.stdout.write(line);
  };
}
console.log = writer("INFO");
console.info = writer("INFO");
console.warn = writer("WARN");
console.error = writer("ERROR");
console.debug = writer("DEBUG");
console.trace = writer("TRACE");

function errorDocument(error) {
  if (error instanceof Error || (error && typeof error.message === "string")) {
    const trace = String(error.stack || "").split("\n");
    return { errorType: error.name || "Error", errorMessage: error.message, trace };
  }
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}

function logError(label, document) {
  const shown = { errorType: document.errorType, errorMessage: document.errorMessage, stack: document.trace };
  console.error(`${label} \t${JSON.stringify(shown)}`);
}

/** "dir/app.handler.nested" → ["dir/app", "handler.nested"]. */
function splitHandler(name) {
  const dot = name.indexOf(".", name.lastIndexOf("/") + 1);
  if (dot < 0) throw new Fault("Runtime.MalformedHandlerName", "Bad handler");
  return [name.slice(0, dot), name.slice(dot + 1)];
}

async function importFile(file) {
  try {
    return await import(pathToFileURL(file).href);
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new Fault("Runtime.UserCodeSyntaxError", `${error.name}: ${error.message}`);
    }
    if (error && (error.code === "MODULE_NOT_FOUND" || error.code === "ERR_MODULE_NOT_FOUND")) {
      throw new Fault("Runtime.ImportModuleError", `Error: ${error.message}`);
    }
    throw error;
  }
}

async function loadModule(root, moduleName) {
  const base = path.resolve(root, moduleName);
  for (const extension of [".js", ".mjs", ".cjs"]) {
    if (fs.existsSync(base + extension)) return importFile(base + extension);
  }
  // A folder or a package, found as require finds it from the code folder.
  const require = createRequire(path.join(root, "index.js"));
  for (const request of [base, moduleName]) {
    try {
      return await importFile(require.resolve(request, { paths: [root] }));
    } catch (error) {
      if (error instanceof Fault) throw error;
    }
  }
  throw new Fault(
    "Runtime.ImportModuleError",
    `Error: Cannot find module '${moduleName}'\nRequire stack:\n- ${LOOP_FILE}`,
  );
}

function findHandler(module, moduleName, handlerPath) {
  const find = (object) => handlerPath.split(".").reduce((o, key) => (o == null ? undefined : o[key]), object);
  let handler = find(module);
  if (handler === undefined && module && module.default) handler = find(module.default);
  if (handler === undefined) {
    throw new Fault("Runtime.HandlerNotFound", `${moduleName}.${handlerPath} is undefined or not exported`);
  }
  if (typeof handler !== "function") {
    throw new Fault("Runtime.HandlerNotFound", `${moduleName}.${handlerPath} is not a function`);
  }
  return handler;
}

/** A header holding JSON (or base64 JSON), decoded; undefined when absent or unreadable. */
function jsonHeader(value) {
  if (!value) return undefined;
  for (const text of [value, Buffer.from(value, "base64").toString("utf8")]) {
    try {
      return JSON.parse(text);
    } catch {
      // the other form
    }
  }
  return undefined;
}

/** Runs the handler: its promise, or its callback (a three-argument handler), settles it. */
function runHandler(handler, event, context) {
  return new Promise((resolve, reject) => {
    let settled = false;
    const succeed = (result) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const fail = (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const callback = (error, result) => (error === undefined || error === null ? succeed(result) : fail(error));
    Object.assign(context, { done: callback, succeed, fail });
    let returned;
    try {
      returned = handler(event, context, callback);
    } catch (error) {
      fail(error);
      return;
    }
    if (returned && typeof returned.then === "function") {
      returned.then(succeed, fail);
    } else if (handler.length < 3) {
      // AWS answers null for a handler that neither returns a promise nor takes a callback.
      succeed(undefined);
    }
  });
}

async function invokeOnce(handler, next) {
  const headers = next.headers;
  const requestId = headers["lambda-runtime-aws-request-id"];
  const deadline = Number(headers["lambda-runtime-deadline-ms"] || 0);
  currentRequestId = requestId;
  unanswered = true;
  if (headers["lambda-runtime-trace-id"]) process.env._X_AMZN_TRACE_ID = headers["lambda-runtime-trace-id"];
  else delete process.env._X_AMZN_TRACE_ID;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: headers["lambda-runtime-invoked-function-arn"],
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    identity: jsonHeader(headers["lambda-runtime-cognito-identity"]),
    clientContext: jsonHeader(headers["lambda-runtime-client-context"]),
    getRemainingTimeInMillis: () => Math.max(deadline - Date.now(), 0),
  };
  let body;
  try {
    let event;
    try {
      event = JSON.parse(next.body.toString("utf8"));
    } catch (error) {
      throw new Fault("Runtime.UnmarshalError", `Unable to unmarshal input: ${error.message}`);
    }
    const result = await runHandler(handler, event, context);
    body = JSON.stringify(result === undefined ? null : result);
  } catch (error) {
    const document = errorDocument(error);
    logError("Invoke Error", document);
    unanswered = false;
    await post(`/invocation/${requestId}/error`, JSON.stringify(document), document.errorType);
    return;
  }
  unanswered = false;
  await post(`/invocation/${requestId}/response`, body);
}

/** An error nothing caught: the invocation under way fails with it, and the runtime exits. */
async function fatal(document, status) {
  logError("Uncaught Exception", document);
  if (unanswered) {
    unanswered = false;
    await post(`/invocation/${currentRequestId}/error`, JSON.stringify(document), document.errorType);
  }
  process.exit(status);
}

process.on("uncaughtException", (error) => fatal(errorDocument(error), 129));
process.on("unhandledRejection", (reason) => {
  const document = errorDocument(reason);
  const message = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
  fatal({ errorType: "Runtime.UnhandledPromiseRejection", errorMessage: message, trace: document.trace }, 128);
});

let handler;
try {
  const root = process.env.LAMBDA_TASK_ROOT || process.cwd();
  const [moduleName, handlerPath] = splitHandler(process.env._HANDLER || "");
  handler = findHandler(await loadModule(root, moduleName), moduleName, handlerPath);
} catch (error) {
  const document = errorDocument(error);
  logError("Init Error", document);
  await post("/init/error", JSON.stringify(document), document.errorType);
  process.exit(1);
}

for (;;) {
  let next;
  try {
    next = await call("GET", "/invocation/next");
  } catch {
    // The Runtime API is gone: switchyard stopped.
    process.exit(0);
  }
  if (next.status !== 200) process.exit(1);
  await invokeOnce(handler, next);
}
