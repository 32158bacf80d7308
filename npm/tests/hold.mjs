// A test process that starts a server and prints its pid: `hold` then waits to be killed; `leave`
// ends at once without stop() (its event loop runs out).
import { start } from "switchyard";

const sy = await start();
process.stdout.write(`${sy.pid}\n`);
if (process.argv[2] === "hold") setInterval(() => {}, 60_000);
