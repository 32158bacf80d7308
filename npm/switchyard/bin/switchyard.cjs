#!/usr/bin/env node
"use strict";
// `npx switchyard ARGS...`: runs the switchyard binary of this machine's platform package (or
// $SWITCHYARD_BIN) with ARGS, passing SIGINT, SIGTERM and SIGHUP on and exiting as it exits. Node
// cannot replace itself with the binary (no exec), so this process stays in between: killed with
// SIGKILL, it leaves the server running (start() in tests does not; docs/testing.md).

const { spawn } = require("node:child_process");
const { BinaryNotFound, findBinary } = require("../lib/binary.cjs");

let exe;
try {
  exe = findBinary();
} catch (error) {
  if (!(error instanceof BinaryNotFound)) throw error;
  process.stderr.write(`switchyard: ${error.message}\n`);
  process.exit(1);
}

const child = spawn(exe, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    try {
      child.kill(signal);
    } catch {
      // gone already
    }
  });
}
child.on("error", (error) => {
  process.stderr.write(`switchyard: cannot run ${exe}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so that whoever started this sees what the binary did.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code);
  }
});
