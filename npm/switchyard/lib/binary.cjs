"use strict";
// Finding the switchyard binary: the one the per-platform package (@switchyard/<platform>, an
// optional dependency of this one, installed by npm only where its os, cpu and libc match) holds,
// or another that the caller or $SWITCHYARD_BIN names. Used by the `switchyard` launcher and by
// start(); nothing here starts a process.

const fs = require("node:fs");
const path = require("node:path");

const EXE = process.platform === "win32" ? "switchyard.exe" : "switchyard";

// The platform packages a release can have, by Node's platform, arch and (on Linux) libc. npm
// installs the one whose package.json `os`, `cpu` and `libc` fields match this machine.
const PACKAGES = {
  "linux-x64-gnu": "@switchyard/linux-x64-gnu",
  "linux-arm64-gnu": "@switchyard/linux-arm64-gnu",
  "linux-x64-musl": "@switchyard/linux-x64-musl",
  "linux-arm64-musl": "@switchyard/linux-arm64-musl",
  "darwin-x64": "@switchyard/darwin-x64",
  "darwin-arm64": "@switchyard/darwin-arm64",
};

class BinaryNotFound extends Error {
  constructor(message) {
    super(message);
    this.name = "BinaryNotFound";
    this.code = "ENOENT";
  }
}

/** "gnu" or "musl" on Linux (as npm's `libc` field says it), "" elsewhere. */
function libc() {
  if (process.platform !== "linux") return "";
  // The report's header names the glibc the process runs with; musl has none. Without the
  // network part the report takes a few milliseconds instead of tens.
  const report = process.report;
  if (!report || !report.getReport) return "gnu";
  const excluded = report.excludeNetwork;
  report.excludeNetwork = true;
  try {
    return report.getReport().header.glibcVersionRuntime ? "gnu" : "musl";
  } finally {
    report.excludeNetwork = excluded;
  }
}

/** This machine as the platform packages name it: `linux-x64-gnu`, `darwin-arm64` ... */
function platformKey() {
  const c = libc();
  return `${process.platform}-${process.arch}${c ? `-${c}` : ""}`;
}

/** The name of the platform package for this machine, or undefined when there is none. */
function platformPackage() {
  return PACKAGES[platformKey()];
}

function isExecutable(file) {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// The launcher of this package, which `switchyard` on PATH may be (node_modules/.bin is on PATH in
// npm scripts): running it from here would start it again and again.
const LAUNCHER = path.join(__dirname, "..", "bin", "switchyard.cjs");

function isLauncher(file) {
  try {
    return fs.realpathSync(file) === fs.realpathSync(LAUNCHER);
  } catch {
    return false;
  }
}

function onPath(name) {
  const extensions = process.platform === "win32" ? ["", ".exe"] : [""];
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of extensions) {
      const file = path.join(dir, name + ext);
      if (isExecutable(file) && !isLauncher(file)) return file;
    }
  }
  return undefined;
}

/** The binary inside the installed platform package, or undefined. */
function packagedBinary() {
  const name = platformPackage();
  if (!name) return undefined;
  let manifest;
  try {
    manifest = require.resolve(`${name}/package.json`);
  } catch {
    return undefined;
  }
  const file = path.join(path.dirname(manifest), "bin", EXE);
  return isExecutable(file) ? file : undefined;
}

/**
 * The path of the switchyard binary to run: `binary` (a path, or a name looked up on PATH) wins;
 * then $SWITCHYARD_BIN; then the one the platform package installed; then `switchyard` on PATH
 * (a `cargo install` or the Python wheel's), never this package's own launcher.
 */
function findBinary(binary) {
  const wanted = binary || process.env.SWITCHYARD_BIN;
  if (wanted) {
    const text = String(wanted);
    if (text.includes("/") || text.includes(path.sep)) {
      if (isExecutable(text)) return path.resolve(text);
      throw new BinaryNotFound(`${text} is not an executable file`);
    }
    const found = onPath(text);
    if (found) return found;
    throw new BinaryNotFound(`${text} is not on PATH`);
  }
  const packaged = packagedBinary();
  if (packaged) return packaged;
  const found = onPath("switchyard");
  if (found) return found;
  const name = platformPackage();
  const why = name
    ? `${name} is not installed (npm installs it with switchyard unless optional dependencies ` +
      "are left out: --omit=optional, or a package-lock.json that npm wrote without it, " +
      "https://github.com/npm/cli/issues/4828, mended by removing node_modules and " +
      "package-lock.json and installing again)"
    : `there is no switchyard package for ${platformKey()}`;
  throw new BinaryNotFound(
    `no switchyard binary: ${why}; name one with SWITCHYARD_BIN=/path/to/switchyard or start({ binary })`,
  );
}

module.exports = { BinaryNotFound, findBinary, platformKey, platformPackage, PACKAGES, EXE };
