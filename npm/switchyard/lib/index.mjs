// The ES module: the same objects as index.cjs (one implementation, so `instanceof` holds whichever
// way a test imports it).
import switchyard from "./index.cjs";

export const {
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
} = switchyard;
