"use strict";
// switchyard for Node.js tests: start() runs the binary on a free port and waits for its ready
// line; the Emulator it gives has the control API (docs/control-api.md) as methods. Node's standard
// library only (child_process, http); the ES module (index.mjs) re-exports this one.

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const http = require("node:http");
const os = require("node:os");
const path = require("node:path");
const readline = require("node:readline");
const { BinaryNotFound, findBinary, platformKey, platformPackage } = require("./binary.cjs");

const READY_PREFIX = "switchyard listening on ";
const REGION = "us-east-1";
const version = require("../package.json").version;

class SwitchyardError extends Error {
  constructor(message) {
    super(message);
    this.name = "SwitchyardError";
  }
}

/** The server did not print its ready line: it exited, said something else, or took too long. */
class StartError extends SwitchyardError {
  constructor(message) {
    super(message);
    this.name = "StartError";
  }
}

/** The control API answered an error: `status`, `code` (e.g. `TimeInPast`) and the server's text. */
class ControlError extends SwitchyardError {
  constructor(method, urlPath, status, code, text) {
    super(`${method} ${urlPath}: ${status} ${code}: ${text}`);
    this.name = "ControlError";
    this.status = status;
    this.code = code;
    this.detail = text;
  }
}

// --- no server outlives the process that started it ----------------------------------------------
//
// On POSIX the binary runs under a small sh that holds the read end of a pipe whose write end is
// this process's (the child's stdin): when this process ends, however it ends (SIGKILL included),
// the kernel closes the write end, `cat` sees the end of its input and the watcher sends the server
// SIGTERM, on which it shuts down within 2 seconds. The inner sh prints its pid and then becomes the
// binary (exec), so the first stdout line is the server's pid and the second its ready line. Once
// the server has exited, the watcher is ended, so that it never signals a pid used again. The
// group runs in a session of its own (detached), so a Ctrl-C at a terminal reaches this process
// only, and stop() can SIGKILL the whole group as a last resort.
const LIFELINE = [
  "exec 3<&0 </dev/null",
  'sh -c \'echo "$$"; exec "$@"\' switchyard "$@" 3<&- &',
  "server=$!",
  '{ cat <&3; kill -TERM "$server"; } >/dev/null 2>&1 &',
  "watcher=$!",
  "exec 3<&-",
  'wait "$server"',
  "status=$?",
  'kill "$watcher" 2>/dev/null',
  'exit "$status"',
].join("\n");

// Servers started here and still running, stopped (SIGTERM, synchronously) when this process
// exits normally, through process.exit() or at the end of the event loop. Signals that end it
// without an exit event (SIGTERM, SIGINT with no handler, SIGKILL) are the lifeline's.
const running = new Set();
let exitHook = false;

function stopAllAtExit() {
  for (const emulator of running) {
    try {
      process.kill(emulator.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  running.clear();
}

function camelToFlag(name) {
  return `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).replace(/_/g, "-")}`;
}

/** A Date or an RFC 3339 string, as the control API writes times (milliseconds, UTC). */
function rfc3339(moment) {
  if (moment instanceof Date) return moment.toISOString();
  if (typeof moment === "string") return moment;
  throw new TypeError("until: a Date or an RFC 3339 string");
}

const NAMED = ["clock", "stateDir", "stateFile", "initResources", "init", "seed", "jitter"];
const OWN = new Set([
  "binary", "host", "port", "args", "env", "readyTimeout", "log", "timeout", ...NAMED,
]);

/**
 * A switchyard server on a free port, or one started elsewhere (connect()). start(options) makes
 * one and starts it; see index.d.ts for the options and methods.
 */
class Emulator {
  constructor(options = {}) {
    const o = { clock: "manual", host: "127.0.0.1", port: 0, ...options };
    this.binary = o.binary;
    this.host = o.host;
    this.port = o.port;
    this.env = { ...(o.env || {}) };
    this.readyTimeout = o.readyTimeout ?? 30;
    this.timeout = o.timeout ?? 300; // seconds a control call may take (an advance can run long)
    this.logPath = o.log != null ? String(o.log) : undefined;
    this._ownLog = o.log == null;
    this._url = undefined;
    this._child = undefined;
    this._pid = undefined;
    this._exited = undefined;
    this._agent = new http.Agent({ keepAlive: true });
    const flags = [];
    const add = (name, value) => {
      if (name === "jitter" && typeof value === "boolean") value = value ? "on" : "off";
      if (value === undefined || value === null || value === false) return;
      flags.push(camelToFlag(name));
      if (value !== true) flags.push(value instanceof URL ? value.pathname : String(value));
    };
    for (const name of NAMED) add(name, o[name]);
    for (const [name, value] of Object.entries(o)) if (!OWN.has(name)) add(name, value);
    this.args = [...flags, ...(o.args || []).map(String)];
  }

  /** The control API of a switchyard started elsewhere (CI, a container ...): nothing is started or stopped. */
  static connect(url, options = {}) {
    const emulator = new Emulator({ timeout: options.timeout });
    emulator._url = String(url).replace(/\/+$/, "");
    return emulator;
  }

  // --- the process ------------------------------------------------------------------------------

  /** `http://<host>:<port>` of the server, once started. */
  get url() {
    if (this._url === undefined) throw new SwitchyardError("the emulator is not started");
    return this._url;
  }

  /** The server's process id (undefined when it was not started here or has stopped). */
  get pid() {
    return this._pid;
  }

  get running() {
    return this._child !== undefined && this._exited === undefined;
  }

  /** The command line start() runs (the binary and its arguments). */
  command() {
    return [findBinary(this.binary), "--host", this.host, "--port", String(this.port), ...this.args];
  }

  /** Starts the server and resolves once it has printed its ready line. */
  async start() {
    if (this._url !== undefined) return this;
    const command = this.command();
    if (this.logPath === undefined) {
      this._logDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-"));
      this.logPath = path.join(this._logDir, "server.log");
    }
    const logFd = fs.openSync(this.logPath, "w");
    const posix = process.platform !== "win32";
    let child;
    try {
      child = posix
        ? spawn("/bin/sh", ["-c", LIFELINE, "switchyard", ...command], {
            stdio: ["pipe", "pipe", logFd],
            env: { ...process.env, ...this.env },
            detached: true,
          })
        : spawn(command[0], command.slice(1), {
            stdio: ["ignore", "pipe", logFd],
            env: { ...process.env, ...this.env },
            windowsHide: true,
          });
    } finally {
      fs.closeSync(logFd); // the child has its own copy
    }
    this._child = child;
    this._exited = undefined;
    this._exit = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this._exited = { code, signal };
        running.delete(this);
        if (child.stdin) child.stdin.destroy();
        resolve(this._exited);
      });
      child.once("error", (error) => {
        this._exited = { code: null, signal: null, error };
        running.delete(this);
        resolve(this._exited);
      });
    });
    if (child.stdin) child.stdin.on("error", () => {}); // EPIPE once the group is gone
    if (!exitHook) {
      process.on("exit", stopAllAtExit);
      exitHook = true;
    }
    try {
      this._url = await this._waitReady(child, posix);
    } catch (error) {
      await this.stop();
      throw error;
    }
    // From here on nothing of the server keeps the event loop alive: a test file that forgets
    // stop() still ends, and the exit hook (or the lifeline) stops the server then.
    child.unref();
    if (child.stdin) child.stdin.unref();
    child.stdout.unref();
    return this;
  }

  _waitReady(child, posix) {
    return new Promise((resolve, reject) => {
      const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
      let settled = false;
      const finish = (error, url) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // Keep reading to the end, so that the server never blocks on a full pipe.
        lines.removeAllListeners("line");
        lines.on("line", () => {});
        if (error) reject(error);
        else resolve(url);
      };
      const timer = setTimeout(
        () => finish(new StartError(`no ready line from ${this._program()} within ${this.readyTimeout} s${this._tailNote()}`)),
        this.readyTimeout * 1000,
      );
      if (!posix) this._pid = child.pid;
      lines.on("line", (line) => {
        if (this._pid === undefined) {
          if (!/^\d+$/.test(line)) {
            finish(new StartError(`unexpected first line from the shell that starts switchyard: ${JSON.stringify(line)}`));
            return;
          }
          this._pid = Number(line);
          running.add(this);
          return;
        }
        if (line.startsWith(READY_PREFIX)) finish(undefined, line.slice(READY_PREFIX.length).trim());
        else finish(new StartError(`unexpected first line from switchyard: ${JSON.stringify(line)}${this._tailNote()}`));
      });
      if (!posix) running.add(this);
      this._exit.then(({ code, signal, error }) => {
        // The last lines may still be on their way: let readline hand them over first.
        setImmediate(() => {
          if (error) finish(new StartError(`could not run ${this._program()}: ${error.message}`));
          else finish(new StartError(`switchyard exited (${signal ? `signal ${signal}` : `status ${code}`}) before it was ready${this._tailNote()}`));
        });
      });
    });
  }

  _program() {
    return this.command()[0];
  }

  _tailNote() {
    const tail = this.logTail(20);
    return tail ? `; its log (${this.logPath}) ends:\n${tail}` : "";
  }

  /** The last `lines` lines of the server's log (its stderr), or "" when there is none. */
  logTail(lines = 40) {
    if (!this.logPath) return "";
    let text;
    try {
      text = fs.readFileSync(this.logPath, "utf8");
    } catch {
      return "";
    }
    const all = text.split("\n");
    if (all[all.length - 1] === "") all.pop();
    return all.slice(-lines).map((l) => `${l}\n`).join("");
  }

  /** Stops the server (SIGTERM, then SIGKILL after `timeout` seconds) and resolves once it is gone. Idempotent. */
  async stop({ timeout = 10 } = {}) {
    const child = this._child;
    if (child !== undefined) {
      if (this._exited === undefined) {
        if (this._pid !== undefined) {
          try {
            process.kill(this._pid, "SIGTERM");
          } catch {
            // gone already
          }
        }
        if (child.stdin) child.stdin.destroy(); // the lifeline: the watcher sends SIGTERM too
        let timer;
        const late = new Promise((resolve) => {
          timer = setTimeout(resolve, timeout * 1000, "late");
        });
        if ((await Promise.race([this._exit, late])) === "late") {
          try {
            if (process.platform === "win32") child.kill("SIGKILL");
            else process.kill(-child.pid, "SIGKILL"); // the whole group: sh, the server, the watcher
          } catch {
            // gone meanwhile
          }
          await this._exit;
        }
        clearTimeout(timer);
      }
      this._child = undefined;
      this._pid = undefined;
      this._url = undefined;
      running.delete(this);
    }
    this._agent.destroy();
    this._agent = new http.Agent({ keepAlive: true });
    if (this._ownLog && this._logDir) {
      fs.rmSync(this._logDir, { recursive: true, force: true });
      this._logDir = undefined;
      this.logPath = undefined;
    }
  }

  toString() {
    return `Emulator(${this._url || "not started"})`;
  }

  // --- the control API --------------------------------------------------------------------------

  _call(method, urlPath, body, query, raw = false) {
    let target = `${this.url}/_switchyard${urlPath}`;
    if (query) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.set(k, String(v));
      const text = params.toString();
      if (text) target += `?${text}`;
    }
    let data;
    const headers = {};
    if (body !== undefined) {
      data = typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
      headers["content-type"] = "application/json";
      headers["content-length"] = Buffer.byteLength(data);
    }
    return new Promise((resolve, reject) => {
      const request = http.request(target, { method, headers, agent: this._agent }, (response) => {
        const chunks = [];
        response.on("data", (c) => chunks.push(c));
        response.on("error", reject);
        response.on("end", () => {
          const payload = Buffer.concat(chunks);
          if (response.statusCode >= 400) {
            const text = payload.toString("utf8");
            let code = "?";
            let message = text;
            try {
              const answer = JSON.parse(text);
              code = answer.error ?? "?";
              message = answer.message ?? "";
            } catch {
              // not JSON: the text as it is
            }
            reject(new ControlError(method, `/_switchyard${urlPath}`, response.statusCode, code, message));
          } else if (raw) {
            resolve(payload);
          } else {
            resolve(payload.length ? JSON.parse(payload.toString("utf8")) : {});
          }
        });
      });
      request.setTimeout(this.timeout * 1000, () => {
        request.destroy(new SwitchyardError(`${method} ${target}: no answer within ${this.timeout} s`));
      });
      request.on("error", (error) => {
        reject(error instanceof SwitchyardError ? error : new SwitchyardError(`${method} ${target}: ${error.message}`));
      });
      request.end(data);
    });
  }

  /** GET /_switchyard/health: status, version, services and the clock. */
  health() {
    return this._call("GET", "/health");
  }

  /** Removes every resource, message, pending delivery, log, outbox entry and fault; the clock keeps its mode and time. */
  async reset() {
    await this._call("POST", "/reset", {});
  }

  /** GET /_switchyard/clock: { mode, factor, now, epochMillis }. */
  clock() {
    return this._call("GET", "/clock");
  }

  /** The virtual time, as a Date. */
  async now() {
    return new Date((await this.clock()).epochMillis);
  }

  /**
   * Moves virtual time forward by `seconds`, or to `{ until }` (a Date or an RFC 3339 string),
   * firing every timer due on the way; resolves once their work has finished, with the server's
   * answer { now, fired }.
   */
  advance(by) {
    let body;
    if (typeof by === "number") body = { seconds: by };
    else if (by && typeof by === "object" && (by.seconds === undefined) !== (by.until === undefined)) {
      body = by.until === undefined ? { seconds: by.seconds } : { until: rfc3339(by.until) };
    } else throw new TypeError("advance() takes seconds, { seconds } or { until }");
    return this._call("POST", "/clock/advance", body);
  }

  /** advance(0): runs whatever is due now, and resolves once its work has finished. */
  settle() {
    return this.advance(0);
  }

  /** The delivery log's records, oldest first. Filters: source, target, messageId, event, limit. */
  async deliveries(filters = {}) {
    return (await this._call("GET", "/deliveries", undefined, filters)).records;
  }

  async clearDeliveries() {
    await this._call("DELETE", "/deliveries");
  }

  /** What was "sent" to e-mail, SMS, push, Lambda and Firehose endpoints. Filters: protocol, target. */
  async outbox(filters = {}) {
    return (await this._call("GET", "/outbox", undefined, filters)).messages;
  }

  async clearOutbox() {
    await this._call("DELETE", "/outbox");
  }

  /**
   * Makes every delivery attempt to `target` fail as if it answered `status` (default 500), for
   * `count` attempts (default: until removed). fault(target, options) or fault({ target, ... }).
   * Resolves to the fault's id.
   */
  async fault(target, options = {}) {
    const o = typeof target === "object" && target !== null ? target : { ...options, target };
    const body = { target: o.target, status: o.status ?? 500 };
    if (o.errorCode != null) body.errorCode = o.errorCode;
    if (o.count != null) body.count = o.count;
    return (await this._call("POST", "/faults", body)).id;
  }

  async faults() {
    return (await this._call("GET", "/faults")).faults;
  }

  async removeFault(id) {
    await this._call("DELETE", `/faults/${encodeURIComponent(id)}`);
  }

  async clearFaults() {
    await this._call("DELETE", "/faults");
  }

  /** GET /_switchyard/resources: every resource of every account and region. */
  resources() {
    return this._call("GET", "/resources");
  }

  /** The whole state as a snapshot (an object), to give loadState() later. */
  async state() {
    return JSON.parse((await this._call("GET", "/state", undefined, undefined, true)).toString("utf8"));
  }

  /**
   * Replaces the running state with a snapshot: an object from state(), its JSON text, its bytes
   * (a Buffer or Uint8Array), or a file: URL of a file `switchyard state export` wrote.
   */
  async loadState(snapshot) {
    let body = snapshot;
    if (snapshot instanceof URL) body = await fs.promises.readFile(snapshot);
    else if (typeof snapshot !== "string" && !(snapshot instanceof Uint8Array)) body = JSON.stringify(snapshot);
    await this._call("POST", "/state", body);
  }

  /**
   * The options an AWS SDK for JavaScript v3 client needs to talk to this server:
   * `new SQSClient(sy.clientConfig())`. `overrides` are merged in.
   */
  clientConfig(overrides = {}) {
    return {
      endpoint: this.url,
      region: REGION,
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      ...overrides,
    };
  }
}

// `await using sy = await start()` (TypeScript 5.2+, Node with explicit resource management).
if (typeof Symbol.asyncDispose === "symbol") {
  Emulator.prototype[Symbol.asyncDispose] = function asyncDispose() {
    return this.stop();
  };
}

/** Starts a switchyard on a free port (a manual clock unless `clock` says otherwise). */
function start(options = {}) {
  return new Emulator(options).start();
}

/** The control API of a server started elsewhere. */
function connect(url, options = {}) {
  return Emulator.connect(url, options);
}

module.exports = {
  BinaryNotFound,
  ControlError,
  Emulator,
  StartError,
  SwitchyardError,
  connect,
  findBinary,
  platformKey,
  platformPackage,
  start,
  version,
};
