// A running warden and its test controls, every one a DEBUG subcommand (or a plain command)
// sent on the package's own connection (resp.js). The suite's own Redis client connects to
// `url`; the controls never go through it, so they work whatever client the suite uses.
import { Connection, ReplyError } from './resp.js';
import { HOST, spawnWarden } from './process.js';

// The name of the controls' connection in CLIENT LIST, and the id it has (it changes if a test
// drops it) is left out of commandLog's entries: they show what the suite's code sent.
const CONTROL_NAME = 'warden-testing';

// flush() moves the clock this far before putting it back on real time: a CLIENT PAUSE a test
// left (an ALL pause holds every command but DEBUG CLOCK, even CLIENT UNPAUSE) ends, and so do
// the blocking commands a test left waiting. A thousand years, far below the clock's limit.
const PAST_EVERY_DEADLINE_MS = 1000 * 365 * 24 * 3600 * 1000;

// Redis returns flat [name, value, name, value, ...] arrays for maps in RESP2.
function pairsToObject(flat) {
  const out = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]] = flat[i + 1];
  return out;
}

// One rule of ACL LIST: `user <name> <rules...>`, where a selector `(~k* +get)` is one rule.
function parseAclUser(line) {
  const rules = line.match(/\([^)]*\)|\S+/g);
  return { name: rules[1], rules: rules.slice(2) };
}

function matchArgs({ command, key, clientName, after, times, probability } = {}) {
  const args = [];
  for (const [option, value] of [['COMMAND', command], ['KEY', key], ['CLIENT-NAME', clientName],
    ['AFTER', after], ['TIMES', times], ['PROBABILITY', probability]]) {
    if (value !== undefined) args.push(option, String(value));
  }
  return args;
}

export class Warden {
  #process;
  #control;
  #baseline;  // { config, acl } as the server started: flush() puts them back

  constructor(server, control, controlIds, seed, baseline) {
    this.#process = server;
    this.#control = control;
    this.#baseline = baseline;
    this.host = HOST;
    this.port = server.port;
    this.url = `redis://${HOST}:${server.port}`;
    this.pid = server.pid;
    this.seed = seed;
    this.faults = new Faults(this);
    this.commandLog = new CommandLog(this, controlIds);
    this.snapshot = new Snapshots(this);
  }

  static async start(options = {}) {
    const server = await spawnWarden(options);
    const controlIds = new Set();
    const control = new Connection(HOST, server.port, async (c) => {
      const [, id] = await c.setup([['CLIENT', 'SETNAME', CONTROL_NAME], ['CLIENT', 'ID']]);
      controlIds.add(id);
    });
    try {
      const [[, seed], config, acl] = await control.pipeline([
        ['CONFIG', 'GET', 'seed'], ['CONFIG', 'GET', '*'], ['ACL', 'LIST']]);
      return new Warden(server, control, controlIds, seed, { config: pairsToObject(config), acl });
    } catch (error) {
      control.close();
      await server.stop();
      throw error;
    }
  }

  // Any command on the controls' connection: warden.command('DEBUG', 'SLEEP', '0').
  command(...args) {
    return this.#control.call(...args);
  }

  // What warden wrote to stderr and its log so far (the newest megabyte).
  log() {
    return this.#process.log();
  }

  // --- The clock ----------------------------------------------------------------------------

  async now() {
    const [, ms] = await this.command('DEBUG', 'CLOCK');
    return ms;
  }

  async freeze(atMs) {
    await this.command('DEBUG', 'CLOCK', 'FREEZE', ...(atMs === undefined ? [] : [atMs]));
  }

  async advance(ms) {
    await this.command('DEBUG', 'CLOCK', 'ADVANCE', ms);
  }

  async realClock() {
    await this.command('DEBUG', 'CLOCK', 'REAL');
  }

  waitBlocked(count, timeoutMs = 5000) {
    return this.command('DEBUG', 'WAIT-BLOCKED', count, timeoutMs);
  }

  async unsupported() {
    const counts = pairsToObject(await this.command('DEBUG', 'UNSUPPORTED'));
    for (const name of Object.keys(counts)) counts[name] = Number(counts[name]);
    return counts;
  }

  // Everything a test can leave behind, gone: the clock real again, no fault rules, no command
  // log, no snapshots, no keys in any database, no scripts or functions, the configuration and
  // ACL users as at start, statistics (INFO commandstats, DEBUG UNSUPPORTED, the slow log, the
  // ACL log) reset, background expiry and cron on. Clients stay connected.
  async flush() {
    // DEBUG CLOCK REAL drops the offset of ADVANCE but not what was timed meanwhile: a key set
    // after an advance keeps its far deadline. The data goes after the clock is real, below.
    await this.#control.pipeline([
      ['DEBUG', 'CLOCK', 'ADVANCE', PAST_EVERY_DEADLINE_MS], ['DEBUG', 'CLOCK', 'REAL']]);
    // Commands a pause held ran before this second round trip was read.
    const replies = await this.#control.pipeline([
      ['DEBUG', 'FAULT', 'CLEAR'],
      ['DEBUG', 'COMMAND-LOG', 'OFF'],
      ['DEBUG', 'COMMAND-LOG', 'RESET'],
      ['DEBUG', 'SET-ACTIVE-EXPIRE', '1'],
      ['DEBUG', 'PAUSE-CRON', '0'],
      ['DEBUG', 'SET-DISABLE-DENY-SCRIPTS', '0'],
      ['DEBUG', 'SNAPSHOT', 'LIST'],
      ['CONFIG', 'GET', '*'],
      ['ACL', 'LIST'],
    ]);
    const [snapshots, config, acl] = replies.slice(-3);
    await this.#control.pipeline([
      ...snapshots.map((s) => ['DEBUG', 'SNAPSHOT', 'DROP', pairsToObject(s).name]),
      ...this.#configRestores(pairsToObject(config)),
      ...this.#aclRestores(acl),
      ['SCRIPT', 'FLUSH', 'SYNC'],
      ['FUNCTION', 'FLUSH', 'SYNC'],
      ['FLUSHALL', 'SYNC'],
      ['CONFIG', 'RESETSTAT'],
      ['SLOWLOG', 'RESET'],
      ['ACL', 'LOG', 'RESET'],
    ]);
  }

  // One CONFIG SET per changed parameter: a parameter and its alias (hash-max-ziplist-entries,
  // hash-max-listpack-entries) both change, and one CONFIG SET may not name both.
  #configRestores(config) {
    const commands = [];
    for (const [name, value] of Object.entries(this.#baseline.config)) {
      if (config[name] === value) continue;
      if (name === 'replicaof' || name === 'slaveof') {
        if (!commands.some((c) => c[0] === 'REPLICAOF')) commands.push(['REPLICAOF', 'NO', 'ONE']);
      } else {
        commands.push(['CONFIG', 'SET', name, value]);
      }
    }
    return commands;
  }

  // ACL SETUSER's `reset` would also set sanitize-payload, which the users warden starts with
  // do not show; the rules a user's line lists are put back over cleared ones instead.
  #aclRestores(acl) {
    const now = new Map(acl.map(parseAclUser).map((u) => [u.name, u.rules.join(' ')]));
    const commands = [];
    for (const name of now.keys()) {
      if (!this.#baseline.acl.some((line) => parseAclUser(line).name === name)) {
        commands.push(['ACL', 'DELUSER', name]);
      }
    }
    for (const { name, rules } of this.#baseline.acl.map(parseAclUser)) {
      if (now.get(name) === rules.join(' ')) continue;
      commands.push(['ACL', 'SETUSER', name, 'resetpass', 'resetkeys', 'resetchannels',
        'clearselectors', '-@all', ...rules]);
    }
    return commands;
  }

  async stop() {
    this.#control.close();
    await this.#process.stop();
  }
}

// Fault rules (DEBUG FAULT). `match` narrows a rule: { command, key (a glob), clientName (a
// glob), after (matches let pass first), times (firings before the rule goes), probability }.
class Faults {
  #warden;

  constructor(warden) {
    this.#warden = warden;
  }

  async add(action, match) {
    const id = await this.#warden.command('DEBUG', 'FAULT', 'ADD', ...matchArgs(match),
      ...action.map(String));
    return { id, remove: () => this.remove(id) };
  }

  // The command does not run; its reply is `-text`, e.g. 'READONLY You can't write ...'.
  error(text, match) {
    return this.add(['ERROR', text], match);
  }

  // The command runs; its reply is held `ms` (real time), plus up to `jitter` ms.
  delay(ms, { jitter, ...match } = {}) {
    return this.add(['DELAY', ms, ...(jitter === undefined ? [] : ['JITTER', jitter])], match);
  }

  // The connection closes before the command runs.
  drop(match) {
    return this.add(['DROP'], match);
  }

  // The command runs, then the connection closes instead of its reply.
  dropAfter(match) {
    return this.add(['DROP-AFTER'], match);
  }

  async remove(id) {
    return (await this.#warden.command('DEBUG', 'FAULT', 'DEL', id)) === 1;
  }

  async clear() {
    await this.#warden.command('DEBUG', 'FAULT', 'CLEAR');
  }

  async list() {
    const rules = await this.#warden.command('DEBUG', 'FAULT', 'LIST');
    return rules.map(pairsToObject);
  }
}

// DEBUG COMMAND-LOG: what warden ran, oldest first. The controls' own commands are left out.
class CommandLog {
  #warden;
  #controlIds;

  constructor(warden, controlIds) {
    this.#warden = warden;
    this.#controlIds = controlIds;
  }

  // Starts an empty log.
  async start(maxEntries) {
    await this.#warden.command('DEBUG', 'COMMAND-LOG', 'ON',
      ...(maxEntries === undefined ? [] : [maxEntries]));
    await this.reset();
  }

  // Stops recording; what was recorded stays readable.
  async stop() {
    await this.#warden.command('DEBUG', 'COMMAND-LOG', 'OFF');
  }

  async reset() {
    await this.#warden.command('DEBUG', 'COMMAND-LOG', 'RESET');
  }

  async status() {
    const status = pairsToObject(await this.#warden.command('DEBUG', 'COMMAND-LOG', 'STATUS'));
    for (const name of Object.keys(status)) {
      if (name !== 'state') status[name] = Number(status[name]);
    }
    return status;
  }

  async entries() {
    const raw = await this.#warden.command('DEBUG', 'COMMAND-LOG', 'GET');
    return raw
      .map(([seq, timeMs, clientId, clientName, db, args, origin]) =>
        ({ seq, timeMs, clientId, clientName, db, args, origin }))
      .filter((e) => !this.#controlIds.has(e.clientId));
  }

  // The commands as arrays, the name lower-cased: [['set', 'lock', 'me', 'PX', '30000']].
  async commands({ includeScripts = true } = {}) {
    return (await this.entries())
      .filter((e) => includeScripts || e.origin !== 'script')
      .map((e) => [e.args[0].toLowerCase(), ...e.args.slice(1)]);
  }
}

// DEBUG SNAPSHOT: in-memory copies of every database, deadlines included.
class Snapshots {
  #warden;

  constructor(warden) {
    this.#warden = warden;
  }

  async save(name = 'default') {
    await this.#warden.command('DEBUG', 'SNAPSHOT', 'SAVE', name);
  }

  // Replaces the data with the copy; keys whose deadline has passed since are left out.
  async load(name = 'default') {
    await this.#warden.command('DEBUG', 'SNAPSHOT', 'LOAD', name);
  }

  async drop(name = 'default') {
    await this.#warden.command('DEBUG', 'SNAPSHOT', 'DROP', name);
  }

  async list() {
    const snapshots = await this.#warden.command('DEBUG', 'SNAPSHOT', 'LIST');
    return snapshots.map(pairsToObject).map(({ name, keys, bytes, 'time-ms': timeMs }) =>
      ({ name, keys: Number(keys), bytes: Number(bytes), timeMs: Number(timeMs) }));
  }
}

export { ReplyError };
