// Types of the switchyard package (index.cjs and, through index.d.mts, index.mjs). Written by hand:
// the package has no build step.

/** Options of start() and new Emulator(). Any other key becomes a flag: `deliveryLogSize: 200000`
 * is `--delivery-log-size 200000`, `enforcePolicies: true` is `--enforce-policies`. */
export interface StartOptions {
  /** The binary to run: a path, or a name looked up on PATH. Default: $SWITCHYARD_BIN, then the
   * platform package's, then `switchyard` on PATH. */
  binary?: string;
  /** `"manual"` (the default), `"real"` or `"fast:<factor>"`; null for the binary's own default. */
  clock?: string | null;
  stateDir?: string | URL;
  stateFile?: string | URL;
  initResources?: string | URL;
  init?: string | URL;
  seed?: number | bigint | string;
  /** true or "on" (the binary's default), false or "off". */
  jitter?: boolean | "on" | "off";
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** More command-line arguments, after the others. */
  args?: readonly string[];
  /** Variables added to this process's environment for the server. */
  env?: Record<string, string>;
  /** Seconds to wait for the ready line (default 30). */
  readyTimeout?: number;
  /** A file for the server's stderr (its log); by default a temporary file, removed by stop(). */
  log?: string;
  /** Seconds a control call may take (default 300: an advance can fire a lot). */
  timeout?: number;
  [flag: string]: unknown;
}

/** GET /_switchyard/clock. */
export interface Clock {
  mode: "real" | "fast" | "manual";
  /** 1 for real, the factor for fast, 0 for manual. */
  factor: number;
  /** RFC 3339 UTC with milliseconds. */
  now: string;
  epochMillis: number;
}

/** The answer of POST /_switchyard/clock/advance. */
export interface Advanced {
  now: string;
  /** Timers fired. */
  fired: number;
}

export type AdvanceBy = number | { seconds: number; until?: never } | { until: Date | string; seconds?: never };

/** A record of the delivery log (docs/control-api.md, "Delivery log"). */
export interface Delivery {
  at: string;
  event: "attempt" | "throttled" | "dead-lettered" | "dlq-failed" | "discarded" | "deduplicated" | "blocked";
  source: string;
  target: string;
  protocol: string;
  messageId: string;
  attempt: number;
  phase: string;
  delaySeconds: number;
  outcome?: "delivered" | "retryable" | "permanent" | null;
  status?: number | null;
  errorCode?: string | null;
  nextAttemptAt?: string | null;
  [field: string]: unknown;
}

export interface DeliveryFilters {
  source?: string;
  target?: string;
  messageId?: string;
  event?: Delivery["event"];
  /** Default 1000, the newest. */
  limit?: number;
}

/** A message of the outbox: what was "sent" to e-mail, SMS, push, Lambda and Firehose endpoints. */
export interface OutboxMessage {
  at: string;
  protocol: string;
  target: string;
  source: string;
  messageId: string;
  /** The string as sent. */
  body: string;
  attributes?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface OutboxFilters {
  protocol?: string;
  target?: string;
}

export interface FaultOptions {
  /** The status the target answers (default 500): 5xx and 429 are retryable, others permanent. */
  status?: number;
  errorCode?: string;
  /** Failing attempts before it removes itself; default: until removed. */
  count?: number;
}

export interface Fault {
  id: string;
  target: string;
  status: number;
  errorCode: string | null;
  /** Failing attempts left; null: until removed. */
  count: number | null;
}

/** A state snapshot (docs/control-api.md, "State snapshots"). */
export interface StateSnapshot {
  format: "switchyard-state";
  version: number;
  savedAt: string;
  state: Record<string, unknown>;
}

/** What an AWS SDK for JavaScript v3 client needs: `new SQSClient(sy.clientConfig())`. */
export interface ClientConfig {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  [option: string]: unknown;
}

export class SwitchyardError extends Error {}

/** The server exited, said something else than its ready line, or said nothing in time. */
export class StartError extends SwitchyardError {}

/** The control API answered an error. */
export class ControlError extends SwitchyardError {
  /** The HTTP status. */
  status: number;
  /** The control API's code: `TimeInPast`, `ClockNotAdjustable`, `FaultNotFound`, `InvalidState` ... */
  code: string;
  /** The server's message. */
  detail: string;
}

/** No switchyard binary where one was looked for. */
export class BinaryNotFound extends Error {
  code: "ENOENT";
}

export class Emulator {
  constructor(options?: StartOptions);
  /** The control API of a server started elsewhere: nothing is started or stopped. */
  static connect(url: string, options?: { timeout?: number }): Emulator;

  /** `http://127.0.0.1:<port>`; throws before start(). */
  readonly url: string;
  /** The server's process id; undefined when it was not started here or has stopped. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** The server's stderr (one line per request); undefined once a temporary log is removed. */
  logPath: string | undefined;
  /** The arguments after `--host` and `--port`. */
  readonly args: string[];

  /** The command line start() runs. */
  command(): string[];
  /** Starts the server; resolves once it has printed its ready line. */
  start(): Promise<this>;
  /** SIGTERM, then SIGKILL after `timeout` seconds (default 10); resolves once it is gone. Idempotent. */
  stop(options?: { timeout?: number }): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
  /** The last `lines` (default 40) lines of the server's log. */
  logTail(lines?: number): string;

  health(): Promise<{ status: string; version: string; services: string[]; clock: Clock }>;
  /** Removes every resource, message, pending delivery, log entry, outbox entry and fault; the clock keeps its mode and time. */
  reset(): Promise<void>;
  clock(): Promise<Clock>;
  /** The virtual time. */
  now(): Promise<Date>;
  /** Moves virtual time forward by seconds, or to { until }, firing every timer due on the way;
   * resolves once their work has finished. ControlError `ClockNotAdjustable` on a real clock,
   * `TimeInPast` for an `until` before now. */
  advance(by: AdvanceBy): Promise<Advanced>;
  /** advance(0): runs what is due now. */
  settle(): Promise<Advanced>;
  deliveries(filters?: DeliveryFilters): Promise<Delivery[]>;
  clearDeliveries(): Promise<void>;
  outbox(filters?: OutboxFilters): Promise<OutboxMessage[]>;
  clearOutbox(): Promise<void>;
  /** Resolves to the fault's id. */
  fault(target: string, options?: FaultOptions): Promise<string>;
  fault(fault: FaultOptions & { target: string }): Promise<string>;
  faults(): Promise<Fault[]>;
  removeFault(id: string): Promise<void>;
  clearFaults(): Promise<void>;
  /** GET /_switchyard/resources. */
  resources(): Promise<Record<string, unknown>>;
  state(): Promise<StateSnapshot>;
  /** A snapshot from state(), its JSON text or bytes, or a file: URL of one. */
  loadState(snapshot: StateSnapshot | string | Uint8Array | URL): Promise<void>;
  clientConfig<T extends object = {}>(overrides?: T): ClientConfig & T;
}

/** Starts switchyard on a free port with a manual clock (unless `clock` says otherwise). */
export function start(options?: StartOptions): Promise<Emulator>;
/** The control API of a server started elsewhere. */
export function connect(url: string, options?: { timeout?: number }): Emulator;
/** The binary start() and the launcher run (see StartOptions.binary). */
export function findBinary(binary?: string): string;
/** This machine as the platform packages name it: `linux-x64-gnu`, `darwin-arm64` ... */
export function platformKey(): string;
/** The platform package for this machine (`@switchyard/linux-x64-gnu` ...), or undefined. */
export function platformPackage(): string | undefined;
/** This package's version, which is the binary's. */
export const version: string;
