// The CommonJS entry (Jest's default): require("switchyard") gives the same objects as the ES module.
const { test } = require("node:test");
const assert = require("node:assert/strict");
const switchyard = require("switchyard");

test("require() and import give one implementation", async () => {
  const esm = await import("switchyard");
  assert.equal(esm.start, switchyard.start);
  assert.equal(esm.Emulator, switchyard.Emulator);
  const sy = await switchyard.start();
  try {
    await sy.advance(5);
    assert.ok(sy instanceof esm.Emulator);
  } finally {
    await sy.stop();
  }
});
