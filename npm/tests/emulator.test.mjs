// The switchyard npm package as a project installs it (npm/test-npm copies this directory into a
// scratch project with the packed tarballs installed): start() and the control API from node:test,
// SQS through the AWS SDK for JavaScript v3, and the installed command.

import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import * as switchyard from "switchyard";
import { ControlError, Emulator, StartError, connect, findBinary, platformPackage, start } from "switchyard";
import { sns, sqs as sqsFor, via } from "./aws.mjs";

const run = promisify(execFile);
const projectDir = fileURLToPath(new URL("..", import.meta.url));

let sy;
let sqs;

before(async () => {
  sy = await start({ jitter: false });
  sqs = sqsFor(sy);
});
beforeEach(() => sy.reset());
after(() => sy.stop());

describe(`SQS (through ${via === "sdk" ? "the AWS SDK for JavaScript v3" : "fetch: no @aws-sdk/client-sqs installed"})`, () => {
  test("a message comes back after its visibility timeout, with no sleep", async () => {
    const url = await sqs.createQueue("orders", { VisibilityTimeout: "30" });
    await sqs.send(url, "order 1");

    assert.equal((await sqs.receive(url))[0].Body, "order 1");
    assert.deepEqual(await sqs.receive(url), []); // in flight: hidden

    await sy.advance(29);
    assert.deepEqual(await sqs.receive(url), []); // still hidden

    await sy.advance(1); // 30 s of virtual time
    assert.equal((await sqs.receive(url))[0].Body, "order 1");
  });

  test("leaves a queue behind for the next test", async () => {
    await sqs.createQueue("left-behind");
    assert.equal((await sqs.listQueues()).length, 1);
  });

  test("finds no queue: reset() emptied the server before it", async () => {
    assert.deepEqual(await sqs.listQueues(), []);
  });
});

describe("the clock", () => {
  test("advance by seconds, { seconds } and { until }; now(); settle()", async () => {
    const t0 = await sy.now();
    assert.ok(t0 instanceof Date);
    assert.equal((await sy.clock()).mode, "manual");
    const answer = await sy.advance({ seconds: 60 });
    assert.deepEqual(Object.keys(answer).sort(), ["fired", "now"]);
    assert.equal(new Date(answer.now).getTime(), t0.getTime() + 60_000);
    const until = new Date(t0.getTime() + 3_600_000);
    await sy.advance({ until });
    assert.equal((await sy.now()).getTime(), until.getTime());
    await sy.advance({ until: "2099-01-01T00:00:00Z" });
    assert.equal((await sy.now()).toISOString(), "2099-01-01T00:00:00.000Z");
    assert.equal((await sy.settle()).fired, 0);
  });

  test("a time in the past is a ControlError TimeInPast", async () => {
    await assert.rejects(sy.advance({ until: new Date(0) }), (error) => {
      assert.ok(error instanceof ControlError);
      assert.equal(error.status, 400);
      assert.equal(error.code, "TimeInPast");
      return true;
    });
    assert.throws(() => sy.advance({ seconds: 1, until: new Date() }), TypeError);
  });
});

describe("deliveries, outbox, faults, state", () => {
  const region = "arn:aws:sns:us-east-1:000000000000";

  test("a fault fails one delivery, the log shows the retry; SMS lands in the outbox", async () => {
    const queue = await sqs.createQueue("inbox");
    const queueArn = "arn:aws:sqs:us-east-1:000000000000:inbox";
    await sns(sy, "CreateTopic", { Name: "events" });
    await sns(sy, "Subscribe", { TopicArn: `${region}:events`, Protocol: "sqs", Endpoint: queueArn });
    await sns(sy, "Subscribe", { TopicArn: `${region}:events`, Protocol: "sms", Endpoint: "+15550100" });
    const id = await sy.fault(queueArn, { status: 500, count: 1 });
    assert.deepEqual((await sy.faults()).map((f) => [f.id, f.count]), [[id, 1]]);

    await sns(sy, "Publish", { TopicArn: `${region}:events`, Message: "hello" });
    await sy.settle();

    const attempts = await sy.deliveries({ target: queueArn, event: "attempt" });
    assert.deepEqual(attempts.map((r) => [r.attempt, r.outcome, r.status]), [[1, "retryable", 500], [2, "delivered", null]]);
    assert.equal(JSON.parse((await sqs.receive(queue))[0].Body).Message, "hello");
    assert.deepEqual(await sy.faults(), []); // count 1: it removed itself

    const sms = await sy.outbox({ protocol: "sms" });
    assert.deepEqual(sms.map((m) => [m.target, m.body]), [["+15550100", "hello"]]);
    await sy.clearOutbox();
    await sy.clearDeliveries();
    assert.deepEqual([await sy.outbox(), await sy.deliveries()], [[], []]);

    const other = await sy.fault({ target: "+15550100", status: 400 });
    await sy.removeFault(other);
    await assert.rejects(sy.removeFault(other), { code: "FaultNotFound", status: 404 });
  });

  test("state() and loadState() take a world out and put it back", async () => {
    await sqs.createQueue("kept");
    const snapshot = await sy.state();
    assert.equal(snapshot.format, "switchyard-state");
    await sy.reset();
    assert.deepEqual(await sqs.listQueues(), []);
    await sy.loadState(snapshot);
    assert.equal((await sqs.listQueues()).length, 1);
    await sy.reset();
    await sy.loadState(JSON.stringify(snapshot)); // its text does as well
    assert.equal((await sqs.listQueues()).length, 1);
    await assert.rejects(sy.loadState({ format: "nothing" }), { code: "InvalidState" });
  });

  test("connect() steers a server started elsewhere", async () => {
    const remote = connect(`${sy.url}/`);
    assert.equal(remote.url, sy.url);
    assert.equal((await remote.health()).status, "ok");
    assert.equal(remote.pid, undefined);
    await remote.stop(); // nothing of its own to stop
    assert.equal((await sy.health()).status, "ok");
  });
});

describe("the process", () => {
  test("the binary is the platform package's", () => {
    assert.match(platformPackage(), /^@switchyard\//);
    assert.ok(findBinary().includes(`node_modules/${platformPackage()}/bin/`), findBinary());
    assert.throws(() => findBinary("/no/such/switchyard"), { name: "BinaryNotFound" });
  });

  test("npx switchyard --version and --help", async () => {
    const { stdout } = await run("npx", ["--no-install", "switchyard", "--version"], { cwd: projectDir });
    assert.equal(stdout.trim(), `switchyard ${switchyard.version}`);
    assert.equal(switchyard.version, process.env.SWITCHYARD_EXPECT_VERSION ?? switchyard.version);
    const help = await run("npx", ["--no-install", "switchyard", "--help"], { cwd: projectDir });
    assert.match(help.stdout, /--clock/);
  });

  test("SWITCHYARD_BIN names another binary", async () => {
    const previous = process.env.SWITCHYARD_BIN;
    process.env.SWITCHYARD_BIN = "/no/such/switchyard";
    try {
      await assert.rejects(start(), { name: "BinaryNotFound" });
    } finally {
      if (previous === undefined) delete process.env.SWITCHYARD_BIN;
      else process.env.SWITCHYARD_BIN = previous;
    }
  });

  test("a server that cannot start is a StartError with its log's end", async () => {
    await assert.rejects(start({ clock: "sometimes" }), (error) => {
      assert.ok(error instanceof StartError, String(error));
      assert.match(error.message, /exited \(status 2\) before it was ready/);
      assert.match(error.message, /invalid clock "sometimes"/);
      return true;
    });
  });

  test("options become flags; stop() is idempotent; Symbol.asyncDispose stops it", async () => {
    const own = new Emulator({ seed: 7, deliveryLogSize: 500, enforcePolicies: true, jitter: false, clock: null });
    assert.deepEqual(own.args, ["--seed", "7", "--jitter", "off", "--delivery-log-size", "500", "--enforce-policies"]);
    await own.start();
    assert.equal((await own.clock()).mode, "real");
    const pid = own.pid;
    assert.ok(alive(pid));
    await own[Symbol.asyncDispose ?? "stop"]();
    assert.equal(own.running, false);
    assert.ok(!alive(pid));
    await own.stop();
  });

  for (const how of ["SIGKILL", "SIGTERM", "the end of its event loop, without stop()"]) {
    test(`no server outlives a test process ended by ${how}`, async () => {
      const holder = spawn(process.execPath, [fileURLToPath(new URL("hold.mjs", import.meta.url)), how.startsWith("SIG") ? "hold" : "leave"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      const pid = Number(await firstLine(holder.stdout));
      assert.ok(pid > 0, `the holder started a server (pid ${pid})`);
      // A holder that ends at once may already have taken its server with it by now; one that
      // holds must still have it running when it is signalled.
      if (how.startsWith("SIG")) {
        assert.ok(alive(pid), `the holder's server runs (pid ${pid})`);
        holder.kill(how);
      }
      await new Promise((resolve) => (holder.exitCode !== null || holder.signalCode !== null ? resolve() : holder.once("exit", resolve)));
      const deadline = Date.now() + 10_000;
      while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      if (alive(pid)) {
        process.kill(pid, "SIGKILL"); // not left behind by this test either
        assert.fail(`switchyard (pid ${pid}) outlived its test process (${how})`);
      }
    });
  }
});

/** Whether `pid` runs (a zombie waiting for its parent does not). */
function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1][0] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}

function firstLine(stream) {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => {
      text += chunk;
      if (text.includes("\n")) resolve(text.split("\n")[0]);
    });
    stream.on("end", () => reject(new Error(`no line: ${JSON.stringify(text)}`)));
  });
}
