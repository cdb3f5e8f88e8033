// Types of warden-testing (index.js). Times are milliseconds; instants are unix ms on warden's
// clock.

export interface WardenOptions {
  /** The warden binary; default $WARDEN_BINARY, else `warden` on PATH. */
  binary?: string;
  /** The TCP port; default 0, a free one the kernel picks. */
  port?: number;
  /** Fixes every random choice (SCAN order, sampling, fault probabilities): `--seed`. */
  seed?: string | number | bigint;
  /** More options, as on warden's command line: `{ maxmemory: '10mb' }` is `--maxmemory 10mb`. */
  config?: Record<string, string | number | Array<string | number>>;
  /** More command-line arguments, after everything else. */
  args?: string[];
  /** How long warden may take to accept connections; default 10000. */
  startTimeoutMs?: number;
}

/** Matches the requests a fault rule applies to; every field narrows it. */
export interface FaultMatch {
  /** A command name, `set`, or a subcommand, `client|kill`. */
  command?: string;
  /** A glob over the command's keys. */
  key?: string;
  /** A glob over the connection's name. */
  clientName?: string;
  /** Matches let through before the rule fires. */
  after?: number;
  /** Firings before the rule is removed; default unlimited. */
  times?: number;
  /** Chance of firing on a match, 0 to 1 (drawn from the seed). */
  probability?: number;
}

export interface Fault {
  id: number;
  /** Removes the rule; false if it was already gone. */
  remove(): Promise<boolean>;
}

/** A rule as DEBUG FAULT LIST shows it. */
export interface FaultRule {
  id: number;
  command: string | null;
  key: string | null;
  'client-name': string | null;
  after: number;
  times: number;
  probability: string;
  action: string;
  matched: number;
  hits: number;
  remaining: number;
}

export interface Faults {
  /** A rule with a raw action: `['ERROR', text]`, `['DELAY', ms, 'JITTER', ms]`, `['DROP']`. */
  add(action: Array<string | number>, match?: FaultMatch): Promise<Fault>;
  /** The command does not run; its reply is the error `text` ('READONLY ...', 'OOM ...'). */
  error(text: string, match?: FaultMatch): Promise<Fault>;
  /** The command runs; its reply is held `ms` of real time, plus up to `jitter`. */
  delay(ms: number, match?: FaultMatch & { jitter?: number }): Promise<Fault>;
  /** The connection closes before the command runs. */
  drop(match?: FaultMatch): Promise<Fault>;
  /** The command runs; the connection closes instead of its reply. */
  dropAfter(match?: FaultMatch): Promise<Fault>;
  remove(id: number): Promise<boolean>;
  clear(): Promise<void>;
  list(): Promise<FaultRule[]>;
}

export interface CommandLogEntry {
  seq: number;
  timeMs: number;
  clientId: number;
  clientName: string;
  db: number;
  /** The command as sent, name first. */
  args: string[];
  /** `client`, `exec` (queued in MULTI) or `script` (a script's redis.call). */
  origin: 'client' | 'exec' | 'script';
}

export interface CommandLogStatus {
  state: 'on' | 'off';
  'max-entries': number;
  entries: number;
  dropped: number;
  'next-seq': number;
}

export interface CommandLog {
  /** Turns the log on, empty. */
  start(maxEntries?: number): Promise<void>;
  /** Turns it off; the entries stay readable. */
  stop(): Promise<void>;
  reset(): Promise<void>;
  status(): Promise<CommandLogStatus>;
  /** Oldest first, without the commands of warden-testing's own controls. */
  entries(): Promise<CommandLogEntry[]>;
  /** The commands, the name lower-cased: `[['set', 'lock', 'me', 'PX', '30000']]`. */
  commands(options?: { includeScripts?: boolean }): Promise<string[][]>;
}

export interface SnapshotInfo {
  name: string;
  keys: number;
  bytes: number;
  timeMs: number;
}

export interface Snapshots {
  /** Copies every database, deadlines included; the name defaults to 'default'. */
  save(name?: string): Promise<void>;
  /** Replaces the data with the copy; keys whose deadline has passed since are left out. */
  load(name?: string): Promise<void>;
  drop(name?: string): Promise<void>;
  list(): Promise<SnapshotInfo[]>;
}

/** A reply that could be anything: strings, numbers, null, arrays of them. */
export type Reply = string | number | null | Reply[];

export interface Warden {
  readonly host: string;
  readonly port: number;
  /** `redis://127.0.0.1:<port>`, for the suite's own client. */
  readonly url: string;
  readonly pid: number;
  /** The seed in use, as a decimal string: pass it as `seed` to replay a run. */
  readonly seed: string;
  readonly faults: Faults;
  readonly commandLog: CommandLog;
  readonly snapshot: Snapshots;

  /** Stops the clock, now or at `atMs`. */
  freeze(atMs?: number): Promise<void>;
  /** Moves the clock forward: leases run out, blocked commands time out, pauses end. */
  advance(ms: number): Promise<void>;
  /** Back to the system clock. Deadlines set while it was ahead stay where they are. */
  realClock(): Promise<void>;
  /** warden's clock, in unix ms. */
  now(): Promise<number>;
  /** Resolves once at least `count` clients are blocked (real time, default 5000 ms). */
  waitBlocked(count: number, timeoutMs?: number): Promise<number>;
  /** Commands answered as unknown since start or the last flush: `{ 'config|nosuch': 1 }`. */
  unsupported(): Promise<Record<string, number>>;
  /**
   * Removes everything a test leaves behind: keys in every database, scripts and functions,
   * fault rules, the command log, snapshots, CLIENT PAUSE, configuration and ACL changes,
   * statistics; the clock is real again. Connections stay.
   */
  flush(): Promise<void>;
  /** Any command, on warden-testing's own connection. */
  command(...args: Array<string | number>): Promise<Reply>;
  /** What warden wrote to stderr and its log so far. */
  log(): string;
  /** Stops warden (SIGTERM) and removes its directory. */
  stop(): Promise<void>;
}

/** An error reply; its message is warden's text. */
export class ReplyError extends Error {
  /** The command it answered, as sent. */
  readonly command?: string[];
}

/** Starts warden on a free loopback port with its test controls on. */
export function startWarden(options?: WardenOptions): Promise<Warden>;

/** useWarden()'s options (warden-testing/node-test, /vitest, /jest). */
export interface UseWardenOptions extends WardenOptions {
  /** Run flush() before each test; default true. */
  flushBeforeEach?: boolean;
}
