// Types of the ES module: the same as the CommonJS entry's (index.d.cts).
export * from "./index.cjs";
