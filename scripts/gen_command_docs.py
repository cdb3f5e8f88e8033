#!/usr/bin/env python3
"""Writes server/commands/command_docs_data.cc: COMMAND DOCS entries read from redis-server 7.0.15.

For every command and subcommand in warden's tables (server/command_table.cc and the subcommand
tables beside their handlers), it starts a throwaway redis-server, sends HELLO 3 and
COMMAND DOCS <name>, and keeps the RESP3 bytes of the doc map (the value after the name). A
container's own `subcommands` entry is dropped: warden rebuilds it from its own subcommand table.
Commands Redis 7.0 lacks get the hand-written entries in WARDEN_ONLY. gen_command_info.py, which
writes COMMAND INFO's tips and key specs, reuses the helpers below.

Usage: scripts/gen_command_docs.py [path/to/redis-server]   (run from anywhere; rerun clang-format)
"""

import os
import re
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "server", "commands", "command_docs_data.cc")
TABLE_FILES = (
    ["server/command_table.cc", "server/scripting/script_commands.cc",
     "server/scripting/function_commands.cc"]
    + sorted("server/commands/" + f for f in os.listdir(os.path.join(ROOT, "server", "commands"))
             if f.endswith(".cc") and not f.endswith("_data.cc"))
)
# A CommandSpec table, and a row in it, which starts with name and arity: {"client|list", -2, ...
TABLE = re.compile(r'^constexpr CommandSpec \w+\[\] = \{\n(.*?)^\};', re.MULTILINE | re.DOTALL)
ROW = re.compile(r'^\s*\{"([a-z_|-]+)",\s*-?\d+,', re.MULTILINE)


def warden_names():
    names = []
    for path in TABLE_FILES:
        with open(os.path.join(ROOT, path)) as f:
            for table in TABLE.findall(f.read()):
                names += ROW.findall(table)
    return names


# --- RESP3 -----------------------------------------------------------------------------------

def skip(data, i):
    """Returns the offset just past the reply starting at data[i]."""
    kind = data[i:i + 1]
    end = data.index(b"\r\n", i)
    head = data[i + 1:end]
    i = end + 2
    if kind in b"+-:_#,(":
        return i
    if kind in b"$=!":
        n = int(head)
        return i if n < 0 else i + n + 2
    n = int(head)
    if kind == b"%":
        n *= 2
    elif kind not in b"*~>":
        raise ValueError("unexpected RESP type %r" % kind)
    for _ in range(max(n, 0)):
        i = skip(data, i)
    return i


def bulk_at(data, i):
    """The bulk string at data[i] and the offset past it."""
    assert data[i:i + 1] == b"$", data[i:i + 20]
    end = data.index(b"\r\n", i)
    n = int(data[i + 1:end])
    return data[end + 2:end + 2 + n], end + 4 + n


def map_items(data, i):
    """(key, value bytes) pairs of the map at data[i]."""
    assert data[i:i + 1] == b"%", data[i:i + 20]
    end = data.index(b"\r\n", i)
    n = int(data[i + 1:end])
    i = end + 2
    items = []
    for _ in range(n):
        key, i = bulk_at(data, i)
        value_end = skip(data, i)
        items.append((key, data[i:value_end]))
        i = value_end
    return items, i


def encode(value):
    """RESP3 for the small Python shapes WARDEN_ONLY uses: dict, list, set-as-tuple, str, int."""
    if isinstance(value, dict):
        out = b"%%%d\r\n" % len(value)
        for k, v in value.items():
            out += encode(k) + encode(v)
        return out
    if isinstance(value, list):
        return b"*%d\r\n" % len(value) + b"".join(encode(v) for v in value)
    if isinstance(value, tuple):  # a set of status words, as argument flags are
        return b"~%d\r\n" % len(value) + b"".join(b"+%s\r\n" % v.encode() for v in value)
    if isinstance(value, int):
        return b":%d\r\n" % value
    data = value.encode()
    return b"$%d\r\n%s\r\n" % (len(data), data)


def doc(summary, since, group, complexity, arguments):
    return {"summary": summary, "since": since, "group": group, "complexity": complexity,
            "arguments": arguments}


def arg(name, type_, **extra):
    out = {"name": name, "type": type_}
    out.update(extra)
    return out


# Commands Redis 7.0 lacks, laid out as Redis 7.0 lays out its own arguments (name, type,
# key_spec_index, token, flags, arguments).
WARDEN_ONLY = {
    # Redis 8.4's delex.json; the condition is optional (warden's arity is -2) and digests are
    # the 16 hex characters DIGEST returns.
    "delex": doc(
        "Conditionally removes the specified key based on value or digest comparison.", "8.4.0",
        "string",
        "O(1) for IFEQ/IFNE, O(N) for IFDEQ/IFDNE where N is the length of the string value.", [
            arg("key", "key", key_spec_index=0),
            arg("condition", "oneof", flags=("optional",), arguments=[
                arg("ifeq-match-value", "string", token="IFEQ"),
                arg("ifne-match-value", "string", token="IFNE"),
                arg("ifdeq-match-digest", "string", token="IFDEQ"),
                arg("ifdne-match-digest", "string", token="IFDNE"),
            ]),
        ]),
    # Redis 8.4's digest.json.
    "digest": doc("Returns the XXH3 hash of a string value.", "8.4.0", "string",
                  "O(N) where N is the length of the string value.",
                  [arg("key", "key", key_spec_index=0)]),
    # Redis 7.2's client-setinfo.json.
    "client|setinfo": doc(
        "Sets information specific to the client or connection.", "7.2.0", "connection", "O(1)", [
            arg("attr", "oneof", arguments=[
                arg("libname", "string", token="lib-name"),
                arg("libver", "string", token="lib-ver"),
            ]),
        ]),
    # Redis 7.2's client-no-touch.json.
    "client|no-touch": doc(
        "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.",
        "7.2.0", "connection", "O(1)", [
            arg("enabled", "oneof", arguments=[
                arg("on", "pure-token", token="ON"),
                arg("off", "pure-token", token="OFF"),
            ]),
        ]),
}


# --- redis-server ----------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_reply(sock, buf):
    while True:
        try:
            end = skip(buf, 0)
            return buf[:end], buf[end:]
        except (ValueError, IndexError):
            chunk = sock.recv(65536)
            if not chunk:
                raise EOFError("redis-server closed the connection")
            buf += chunk


def request(args):
    """A command as a RESP array of bulk strings."""
    out = b"*%d\r\n" % len(args)
    for a in args:
        data = a.encode()
        out += b"$%d\r\n%s\r\n" % (len(data), data)
    return out


def redis_replies(redis_server, commands):
    """Starts a throwaway redis-server, sends HELLO 3 and then each command (a list of str), and
    returns the server's version and the RESP3 bytes of each reply."""
    port = free_port()
    proc = subprocess.Popen([redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save",
                             "", "--appendonly", "no", "--databases", "1"],
                            stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                sock = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("redis-server did not start")
        buf = b""
        sock.sendall(request(["HELLO", "3"]))
        hello, buf = read_reply(sock, buf)
        version = bulk_at(dict(map_items(hello, 0)[0])[b"version"], 0)[0]
        replies = []
        for args in commands:
            sock.sendall(request(args))
            reply, buf = read_reply(sock, buf)
            replies.append(reply)
        sock.close()
        return version, replies
    finally:
        proc.terminate()
        proc.wait()


def capture(redis_server, names):
    version, replies = redis_replies(redis_server, [["COMMAND", "DOCS", n] for n in names])
    docs = {}
    for name, reply in zip(names, replies):
        entries, _ = map_items(reply, 0)
        if entries:
            docs[name] = entries[0][1]
    return version, docs


def without_subcommands(entry):
    items, _ = map_items(entry, 0)
    kept = [(k, v) for k, v in items if k != b"subcommands"]
    if len(kept) == len(items):
        return entry
    assert items[-1][0] == b"subcommands", "warden appends subcommands last, as Redis does"
    return b"%%%d\r\n" % len(kept) + b"".join(encode(k.decode()) + v for k, v in kept)


def literal(data):
    out = []
    for byte in data:
        c = chr(byte)
        if c == "\\" or c == '"':
            out.append("\\" + c)
        elif c == "\r":
            out.append("\\r")
        elif c == "\n":
            out.append("\\n")
        elif 32 <= byte < 127:
            out.append(c)
        else:
            out.append("\\%03o" % byte)
    return '"' + "".join(out) + '"'


def main():
    redis_server = sys.argv[1] if len(sys.argv) > 1 else "redis-server"
    names = warden_names()
    version, docs = capture(redis_server, names)
    if version != b"7.0.15":
        print("warning: redis-server is %s, not 7.0.15" % version.decode(), file=sys.stderr)
    lines = []
    for name in names:
        if name in WARDEN_ONLY:
            assert name not in docs, name + " is in Redis now: drop its WARDEN_ONLY entry"
            data, source = encode(WARDEN_ONLY[name]), "Not in Redis 7.0: WARDEN_ONLY in the generator."
        elif name in docs:
            data, source = without_subcommands(docs[name]), None
        else:
            raise SystemExit("redis-server has no docs for %s: add it to WARDEN_ONLY" % name)
        if source:
            lines.append("    // %s" % source)
        lines.append("    {%s,\n     %s}," % (literal(name.encode()), literal(data)))
    with open(OUTPUT, "w") as f:
        f.write(f"""\
// Generated by scripts/gen_command_docs.py from redis-server {version.decode()}: do not edit.
//
// COMMAND DOCS entries as RESP3, one per command and subcommand warden has: the doc map that
// follows the name, without a container's `subcommands` (warden builds that from its own table).
#include <string_view>

namespace warden::server {{
namespace {{

struct CommandDocBytes {{
  std::string_view name;
  std::string_view resp3;
}};

// clang-format off
constexpr CommandDocBytes kCommandDocs[] = {{
{chr(10).join(lines)}
}};
// clang-format on

}}  // namespace

std::string_view CommandDocResp3(std::string_view full_name) {{
  for (const CommandDocBytes& doc : kCommandDocs) {{
    if (doc.name == full_name) return doc.resp3;
  }}
  return {{}};
}}

}}  // namespace warden::server
""")
    print("wrote %s: %d entries" % (os.path.relpath(OUTPUT, ROOT), len(names)))


if __name__ == "__main__":
    main()
