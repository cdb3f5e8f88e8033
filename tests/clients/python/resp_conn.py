"""A raw RESP connection for tests that compare exact reply bytes across several clients.

Conn sends commands as multibulk requests and reads one complete reply at a time, RESP2 or
RESP3, as the exact bytes the server wrote: nothing is decoded, so two servers' transcripts
compare byte for byte. parse() turns a reply into Python values where a test needs to read one
(INFO, CLIENT LIST, CLIENT ID). Uses only the standard library.
"""

import socket
import time


class ReplyTimeout(AssertionError):
    """No complete reply arrived in time: the client is still blocked, or the server hangs."""


class ConnectionClosed(AssertionError):
    """The server closed the connection while a reply was expected."""


class RespError(str):
    """An error reply as parse() returns it (not raised): the text without '-' and CRLF."""


def encode(*args):
    """One request as a RESP multibulk; str arguments are UTF-8, numbers are written in text."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, str):
            arg = arg.encode()
        elif isinstance(arg, (int, float)):
            arg = str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    return b"".join(parts)


def reply_end(buf, pos=0):
    """The index just past the one complete reply that starts at buf[pos], or None while the
    buffer holds only part of it. Raises ValueError on bytes that are not RESP."""
    if pos >= len(buf):
        return None
    kind = buf[pos:pos + 1]
    eol = buf.find(b"\r\n", pos)
    if eol < 0:
        return None
    after = eol + 2
    if kind in (b"+", b"-", b":", b"_", b",", b"#", b"("):
        return after
    length = int(buf[pos + 1:eol])
    if kind in (b"$", b"=", b"!"):  # bulk, verbatim, bulk error
        if length < 0:
            return after
        end = after + length + 2
        if len(buf) < end:
            return None
        if buf[end - 2:end] != b"\r\n":
            raise ValueError("bulk reply not followed by CRLF: %r" % buf[pos:end])
        return end
    if kind in (b"*", b"~", b">", b"%", b"|"):  # array, set, push, map, attribute
        if length < 0:
            return after
        elements = length * 2 if kind in (b"%", b"|") else length
        for _ in range(elements):
            after = reply_end(buf, after)
            if after is None:
                return None
        # An attribute map comes before the reply it describes.
        return reply_end(buf, after) if kind == b"|" else after
    raise ValueError("not a RESP reply: %r" % buf[pos:pos + 40])


def _parse_at(raw, pos):
    kind = raw[pos:pos + 1]
    eol = raw.find(b"\r\n", pos)
    head = raw[pos + 1:eol]
    after = eol + 2
    if kind in (b"+", b",", b"("):
        return head, after
    if kind == b"-":
        return RespError(head.decode(errors="replace")), after
    if kind == b":":
        return int(head), after
    if kind == b"_":
        return None, after
    if kind == b"#":
        return head == b"t", after
    length = int(head)
    if kind in (b"$", b"=", b"!"):
        if length < 0:
            return None, after
        data = raw[after:after + length]
        if kind == b"=":
            data = data[4:]  # "txt:" or "mkd:"
        if kind == b"!":
            data = RespError(data.decode(errors="replace"))
        return data, after + length + 2
    if length < 0:
        return None, after
    if kind == b"|":
        for _ in range(length * 2):
            _, after = _parse_at(raw, after)
        return _parse_at(raw, after)
    items = []
    for _ in range(length * 2 if kind == b"%" else length):
        item, after = _parse_at(raw, after)
        items.append(item)
    if kind == b"%":
        return dict(zip(items[0::2], items[1::2])), after
    return items, after


def parse(raw):
    """One complete reply as Python values: bytes for strings and doubles, int, None for every
    null, list for arrays, sets and pushes, dict for maps, RespError for errors."""
    value, end = _parse_at(raw, 0)
    if end != len(raw):
        raise ValueError("trailing bytes after the reply: %r" % raw[end:])
    return value


class Conn:
    """One client connection to 127.0.0.1:port. Close it (or use it as a context manager)."""

    def __init__(self, port, timeout=5):
        self.port = port
        self._sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buf = b""
        self._id = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._sock.close()

    def send(self, *args):
        """Sends one command and does not wait for its reply."""
        self._sock.sendall(encode(*args))

    def send_raw(self, data):
        """Sends bytes as they are, e.g. several commands in one write."""
        self._sock.sendall(data)

    def reply(self, timeout=5):
        """The next complete reply, as the exact bytes the server sent. Raises ReplyTimeout
        when none is complete within `timeout` seconds, ConnectionClosed on end of stream."""
        deadline = time.monotonic() + timeout
        while True:
            end = reply_end(self._buf)
            if end is not None:
                raw, self._buf = self._buf[:end], self._buf[end:]
                return raw
            left = deadline - time.monotonic()
            if left <= 0:
                raise ReplyTimeout("no complete reply from port %d within %gs (have %r)"
                                   % (self.port, timeout, self._buf))
            self._sock.settimeout(left)
            try:
                data = self._sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                raise ConnectionClosed("port %d closed the connection (have %r)"
                                       % (self.port, self._buf))
            self._buf += data

    def call(self, *args, timeout=5):
        """Sends one command and returns its reply's bytes."""
        self.send(*args)
        return self.reply(timeout)

    def value(self, *args):
        """Sends one command and returns its reply parsed (see parse())."""
        return parse(self.call(*args))

    def id(self):
        """This connection's CLIENT ID, asked once."""
        if self._id is None:
            self._id = self.value("CLIENT", "ID")
            assert isinstance(self._id, int), "CLIENT ID replied %r" % (self._id,)
        return self._id

    def read_until_eof(self, timeout=5):
        """Everything the server sends until it closes the connection (a reset counts as a
        close). Raises ReplyTimeout if the connection is still open after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        data, self._buf = self._buf, b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ReplyTimeout("port %d kept the connection open for %gs (read %r)"
                                   % (self.port, timeout, data))
            self._sock.settimeout(left)
            try:
                chunk = self._sock.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                return data
            if not chunk:
                return data
            data += chunk
