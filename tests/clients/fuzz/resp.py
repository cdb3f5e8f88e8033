"""A blocking RESP2/RESP3 client, and redis-server / warden processes on free loopback ports.

Standard library only. Replies are parsed into (kind, data) tuples so that the tester can
compare them structurally (TTL tolerance, sets) and re-encode them for printing.
"""

import os
import socket
import subprocess
import time

REPLY_TIMEOUT_S = 5.0


class ConnectionLost(Exception):
    pass


def encode_command(args):
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class RespConnection:
    """One blocking connection. read_reply() parses one reply into a (kind, data) value:

    Values: ("+", bytes), ("-", bytes), (":", int), ("$", bytes | None), ("*", list | None),
    and the RESP3 kinds ("_", None), (",", bytes), ("#", bool), ("(", int), ("=", bytes),
    ("%", [(k, v), ...]), ("~", list), (">", list).
    """

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=REPLY_TIMEOUT_S)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.pos = 0

    def close(self):
        self.sock.close()

    def send(self, args):
        self.sock.sendall(encode_command(args))

    def call(self, *args):
        self.send(args)
        return self.read_reply()

    def _fill(self):
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout as e:
            raise ConnectionLost("no reply within %.0f s" % REPLY_TIMEOUT_S) from e
        except OSError as e:
            raise ConnectionLost(str(e)) from e
        if not chunk:
            raise ConnectionLost("connection closed")
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0

    def _line(self):
        while True:
            end = self.buf.find(b"\r\n", self.pos)
            if end >= 0:
                line = self.buf[self.pos:end]
                self.pos = end + 2
                return line
            self._fill()

    def _exact(self, n):
        while len(self.buf) - self.pos < n + 2:
            self._fill()
        data = self.buf[self.pos:self.pos + n]
        self.pos += n + 2
        return data

    def read_reply(self):
        return self._value()

    def _value(self):
        line = self._line()
        if not line:
            raise ConnectionLost("empty reply line")
        kind, rest = chr(line[0]), line[1:]
        if kind in "+-":
            return (kind, rest)
        if kind in ":(":
            return (kind, int(rest))
        if kind in "$=":
            n = int(rest)
            return (kind, None if n < 0 else self._exact(n))
        if kind in "*~>":
            n = int(rest)
            return (kind, None if n < 0 else [self._value() for _ in range(n)])
        if kind == "%":
            return (kind, [(self._value(), self._value()) for _ in range(int(rest))])
        if kind == "_":
            return (kind, None)
        if kind == ",":
            return (kind, rest)
        if kind == "#":
            return (kind, rest == b"t")
        if kind == "|":  # attribute: skip it, the reply follows
            for _ in range(int(rest)):
                self._value()
                self._value()
            return self._value()
        raise ConnectionLost("not RESP: %r" % line[:40])


def to_bytes(value):
    """The RESP2/RESP3 bytes of a parsed value (what the server sent, re-encoded)."""
    kind, data = value
    if kind in "+-,":
        return kind.encode() + data + b"\r\n"
    if kind in ":(":
        return b"%s%d\r\n" % (kind.encode(), data)
    if kind in "$=":
        return b"$-1\r\n" if data is None else b"%s%d\r\n%s\r\n" % (kind.encode(), len(data), data)
    if kind in "*~>":
        if data is None:
            return b"*-1\r\n"
        return b"%s%d\r\n" % (kind.encode(), len(data)) + b"".join(map(to_bytes, data))
    if kind == "%":
        return b"%%%d\r\n" % len(data) + b"".join(to_bytes(k) + to_bytes(v) for k, v in data)
    if kind == "_":
        return b"_\r\n"
    if kind == "#":
        return b"#t\r\n" if data else b"#f\r\n"
    raise ValueError(kind)



def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ping(port, proc, deadline_s=10.0):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError("server exited with %s" % proc.returncode)
        try:
            conn = RespConnection(port)
            reply = conn.call("PING")
            conn.close()
            if reply == ("+", b"PONG"):
                return
        except (OSError, ConnectionLost):
            pass
        time.sleep(0.05)
    raise RuntimeError("server on port %d did not answer PING" % port)


# Sixteen databases, Redis's default and warden's: the tester SELECTs, MOVEs, COPYs and SWAPDBs
# across them.
SERVER_FLAGS = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--enable-debug-command", "yes", "--databases", "16"]


def start_redis(binary, log):
    for _ in range(5):
        port = free_port()
        proc = subprocess.Popen([binary, "--port", str(port), "--daemonize", "no"] + SERVER_FLAGS,
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_ping(port, proc)
            return proc, port
        except RuntimeError:
            proc.kill()
            proc.wait()
    raise RuntimeError("could not start %s" % binary)


def start_warden(binary, log, tmpdir):
    port_file = os.path.join(tmpdir, "warden.port")
    proc = subprocess.Popen([binary, "--port", "0", "--port-file", port_file] + SERVER_FLAGS,
                            stdout=log, stderr=subprocess.STDOUT)
    end = time.monotonic() + 10
    while not os.path.exists(port_file):
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            raise RuntimeError("warden did not write %s" % port_file)
        time.sleep(0.02)
    port = int(open(port_file).read().strip())
    wait_ping(port, proc)
    return proc, port
