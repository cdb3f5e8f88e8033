"""cmsgpack and struct inside scripts, randomized: the same seeded inputs to redis-server and
warden, replies compared.

Each case is one EVAL of random bytes through cmsgpack.unpack or struct.unpack, or random values
through cmsgpack.pack or struct.pack, with random formats (valid, invalid and edge-case options).
Results are made deterministic in Lua before they are returned: numbers printed with 17 digits,
tables serialized with sorted keys (a table key is iterated in address order, which differs
between processes). The case files (tests/differential/cases/scripting_msgpack_struct.txt) pin
the known cases; this finds the ones nobody thought of.
"""

import random

import pytest
import redis

from conftest import targets

SERIALIZE = """
local function ser(v, depth)
  if type(v) == 'number' then return string.format('%.17g', v) end
  if type(v) ~= 'table' then return type(v) .. ':' .. tostring(v) end
  if depth > 20 then return '...' end
  local parts = {}
  for k, x in pairs(v) do table.insert(parts, ser(k, depth + 1) .. '=' .. ser(x, depth + 1)) end
  table.sort(parts)
  return '{' .. table.concat(parts, ',') .. '}'
end
local function all(...)
  local out = {}
  for i = 1, select('#', ...) do out[i] = ser((select(i, ...)), 0) end
  return out
end
"""

STRUCT_OPTIONS = list("bBhHlLTiIfdxcs<>! ") + ["i3", "I5", "i8", "I16", "c0", "c2", "!4", "!8",
                                                 "!2", "i33", "!3", "z"]
STRUCT_VALUES = ["-1", "0", "255", "65536", "-70000", "2^40", "0.5", "1e20", "-2^63", "'abc'",
                 "''", "3", "0/0", "-0.5"]
MSGPACK_VALUES = ["-1", "0", "127", "128", "-33", "65536", "2^32", "2^53", "-2^63", "0.1", "1/0",
                  "0/0", "'x'", "string.rep('y', 40)", "true", "false", "nil", "{}", "{1,2}",
                  "{a=1}", "{1,nil,3}", "{[3]=1}", "{{1},{a={2}}}"]


def random_case(rng):
    kind = rng.randrange(4)
    if kind == 0:
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 24)))
        return "return all(pcall(cmsgpack.unpack, ARGV[1]))", [data]
    if kind == 1:
        fmt = "".join(rng.choice(STRUCT_OPTIONS) for _ in range(rng.randrange(1, 6)))
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
        return "return all(pcall(struct.unpack, ARGV[1], ARGV[2]))", [fmt, data]
    if kind == 2:
        fmt = "".join(rng.choice(STRUCT_OPTIONS) for _ in range(rng.randrange(1, 6)))
        values = ", ".join(rng.choice(STRUCT_VALUES) for _ in range(5))
        return "return all(pcall(struct.pack, ARGV[1], %s))" % values, [fmt]
    values = ", ".join(rng.choice(MSGPACK_VALUES) for _ in range(rng.randrange(1, 5)))
    return ("local ok, e = pcall(cmsgpack.pack, %s) "
            "if not ok then return all(ok, e) end return all(ok, e, cmsgpack.unpack(e))" % values,
            [])


def run(client, script, args):
    try:
        return "ok", client.eval(SERIALIZE + script, 0, *args)
    except redis.ResponseError as e:
        return "error", str(e)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_uses_match_redis(seed):
    servers = targets()
    warden = redis.Redis(port=servers["warden"].port, socket_timeout=10)
    reference = redis.Redis(port=servers["redis-server"].port, socket_timeout=10)
    rng = random.Random(seed)
    mismatches = []
    for _ in range(1500):
        script, args = random_case(rng)
        got, want = run(warden, script, args), run(reference, script, args)
        if got != want:
            mismatches.append((script, args, got, want))
    warden.close()
    reference.close()
    assert mismatches == [], "%d of 1500 differ; first: %r" % (len(mismatches), mismatches[0])
