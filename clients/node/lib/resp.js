// The package's own connection to warden, for the controls only: RESP2 over `node:net`, so the
// package needs no Redis client of its own. Requests are pipelined in the order they are sent
// and replies matched to them in that order. Replies come back as JavaScript values: simple and
// bulk strings as strings (UTF-8), integers as numbers, arrays as arrays, nil as null, and error
// replies as a rejected ReplyError whose message is warden's text.
//
// The connection is made on the first request and again after it was closed (a test may run
// DEBUG DROP-CLIENTS or CLIENT KILL), with `onConnect` run first on each new one. It holds the
// event loop open only while a reply is awaited, so a suite that forgets stop() still exits.
import net from 'node:net';

// `command` is the request it answered, as sent.
export class ReplyError extends Error {
  constructor(message, command = undefined) {
    super(message);
    this.name = 'ReplyError';
    this.command = command?.map(String);
  }
}

class ConnectionLost extends Error {}

export function encodeCommand(args) {
  const parts = [`*${args.length}\r\n`];
  for (const arg of args) {
    const text = String(arg);
    parts.push(`$${Buffer.byteLength(text)}\r\n`, text, '\r\n');
  }
  return parts.join('');
}

// Reads one reply from `buffer` at `offset`. Returns { value, end }, or null when the buffer
// ends before the reply does. An error reply nested in an array stays a ReplyError value.
export function parseReply(buffer, offset = 0) {
  const lineEnd = buffer.indexOf('\r\n', offset);
  if (lineEnd < 0) return null;
  const type = String.fromCharCode(buffer[offset]);
  const line = buffer.toString('utf8', offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
      return { value: line, end: next };
    case '-':
      return { value: new ReplyError(line), end: next };
    case ':':
      return { value: Number(line), end: next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return null;
      return { value: buffer.toString('utf8', next, next + length), end: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, at);
        if (item === null) return null;
        items.push(item.value);
        at = item.end;
      }
      return { value: items, end: at };
    }
    default:
      throw new Error(`warden-testing: unexpected reply type ${JSON.stringify(type)}`);
  }
}

export class Connection {
  #host;
  #port;
  #onConnect;
  #socket = null;
  #connecting = null;
  #pending = [];
  #buffer = Buffer.alloc(0);
  #closed = false;

  // `onConnect(connection)` runs on each new connection before the requests waiting for it.
  constructor(host, port, onConnect = async () => {}) {
    this.#host = host;
    this.#port = port;
    this.#onConnect = onConnect;
  }

  // Sends one command; resolves to its reply.
  async call(...args) {
    const [reply] = await this.pipeline([args]);
    return reply;
  }

  // Sends several commands in one write; resolves to their replies in order, or rejects with
  // the first error reply once every reply has arrived. Commands the server closed the
  // connection on are sent once more on a new one: a test that just ran DEBUG DROP-CLIENTS
  // has our connection closed before we hear of it.
  async pipeline(commands) {
    let replies;
    try {
      await this.#connected();
      replies = await this.#send(commands);
    } catch (error) {
      if (!(error instanceof ConnectionLost)) throw error;
      await this.#connected();
      replies = await this.#send(commands);
    }
    const failed = replies.findIndex((r) => r instanceof ReplyError);
    if (failed >= 0) throw new ReplyError(replies[failed].message, commands[failed]);
    return replies;
  }

  close() {
    this.#closed = true;
    this.#socket?.destroy();
  }

  async #connected() {
    if (this.#closed) throw new Error('warden-testing: the server was stopped');
    while (this.#socket === null || this.#connecting !== null) {
      this.#connecting ??= this.#connect().finally(() => {
        this.#connecting = null;
      });
      await this.#connecting;
    }
  }

  async #connect() {
    const socket = net.connect(this.#port, this.#host);
    socket.setNoDelay(true);
    await new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.on('error', () => {});  // 'close' follows and fails what is pending
    socket.on('data', (chunk) => this.#read(chunk));
    socket.on('close', () => this.#lost(socket));
    socket.unref();
    this.#socket = socket;
    this.#buffer = Buffer.alloc(0);
    try {
      await this.#onConnect(this);
    } catch (error) {
      socket.destroy();
      throw error;
    }
  }

  // Writes without waiting for a connection: onConnect uses it on the socket being set up.
  #send(commands) {
    const socket = this.#socket;
    if (socket === null) return Promise.reject(new Error('warden-testing: not connected'));
    const replies = commands.map(
      () => new Promise((resolve, reject) => this.#pending.push({ resolve, reject, socket })),
    );
    socket.ref();
    socket.write(commands.map(encodeCommand).join(''));
    return Promise.all(replies);
  }

  #read(chunk) {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    let at = 0;
    try {
      for (;;) {
        const reply = parseReply(this.#buffer, at);
        if (reply === null) break;
        at = reply.end;
        this.#pending.shift()?.resolve(reply.value);
      }
    } catch (error) {
      // Not RESP2 (a HELLO 3 sent through command()): the connection cannot be read on.
      for (const p of this.#pending.splice(0)) p.reject(error);
      this.#socket?.destroy();
      return;
    }
    this.#buffer = this.#buffer.subarray(at);
    if (this.#pending.length === 0) this.#socket?.unref();
  }

  #lost(socket) {
    if (this.#socket === socket) this.#socket = null;
    const lost = this.#pending.filter((p) => p.socket === socket);
    this.#pending = this.#pending.filter((p) => p.socket !== socket);
    for (const p of lost) {
      p.reject(new ConnectionLost('warden-testing: the connection to warden closed'));
    }
  }

  // For onConnect: sends on the new socket before the requests waiting for it.
  setup(commands) {
    return this.#send(commands);
  }
}
