"""redis-py's functions API (Debian's python3-redis 4.3.4) against redis-server and warden.

function_load (with and without replace, and its errors), fcall and fcall_ro with keys and
arguments, function flags as fcall_ro enforces them, function_list (by library pattern, with
code) as redis-py returns it, function_delete, function_stats, function_kill with nothing to
kill, function_flush, a lock library (acquire, release and extend with a fencing token) used
the way an application would, functions inside a pipeline and a transaction, and a library
that survives SCRIPT FLUSH.

Library and function names carry a per-test suffix, so tests never see each other's libraries;
the one test that flushes every library runs on servers no other suite uses at the same time.
"""

import uuid

import pytest
from redis.exceptions import ResponseError

LOCK_LIBRARY = """#!lua name=locks_{s}
-- A lock with a fencing token: acquire returns the token, release and extend check it.
local function acquire(keys, args)
  local token = redis.call('incr', keys[2])
  if redis.call('set', keys[1], token, 'NX', 'PX', args[1]) then
    return token
  end
  return false
end

local function release(keys, args)
  if redis.call('get', keys[1]) == args[1] then
    return redis.call('del', keys[1])
  end
  return 0
end

local function extend(keys, args)
  if redis.call('get', keys[1]) == args[1] then
    return redis.call('pexpire', keys[1], args[2])
  end
  return 0
end

local function holder(keys)
  return redis.call('get', keys[1])
end

redis.register_function('acquire_{s}', acquire)
redis.register_function('release_{s}', release)
redis.register_function('extend_{s}', extend)
redis.register_function{{function_name='holder_{s}', callback=holder, flags={{'no-writes'}},
                        description='who holds the lock'}}
"""


@pytest.fixture
def suffix():
    return uuid.uuid4().hex[:12]


@pytest.fixture
def r(target, connections):
    client = connections(target.port, decode_responses=True)
    yield client


@pytest.fixture
def lock_library(r, suffix):
    code = LOCK_LIBRARY.format(s=suffix)
    assert r.function_load(code) == "locks_" + suffix
    yield code
    try:
        r.function_delete("locks_" + suffix)
    except ResponseError:
        pass


def lib(name, suffix, body):
    return "#!lua name=%s_%s\n%s" % (name, suffix, body)


def test_load_and_fcall_with_keys_and_args(r, suffix):
    code = lib("echo", suffix, "redis.register_function('echo_%s', function(keys, args)\n"
               "  return {keys, args, #keys, #args}\nend)" % suffix)
    assert r.function_load(code) == "echo_" + suffix
    assert r.fcall("echo_" + suffix, 2, "k1", "k2", "a1", 7) == [["k1", "k2"], ["a1", "7"], 2, 2]
    assert r.fcall("echo_" + suffix, 0) == [[], [], 0, 0]
    # Function names are case-insensitive.
    assert r.fcall("ECHO_" + suffix, 1, "k") == [["k"], [], 1, 0]
    r.function_delete("echo_" + suffix)


def test_load_errors(r, suffix):
    name = "dup_" + suffix
    code = lib("dup", suffix, "redis.register_function('%s', function() return 1 end)" % name)
    assert r.function_load(code) == "dup_" + suffix
    with pytest.raises(ResponseError) as e:
        r.function_load(code)
    assert str(e.value) == "Library 'dup_%s' already exists" % suffix
    # REPLACE swaps the code; the function is the new one.
    r.function_load(code.replace("return 1", "return 2"), replace=True)
    assert r.fcall(name, 0) == 2
    with pytest.raises(ResponseError) as e:
        r.function_load("redis.register_function('x', function() end)")
    assert str(e.value) == "Missing library metadata"
    with pytest.raises(ResponseError) as e:
        r.function_load(lib("other", suffix, "redis.register_function('%s', function() end)"
                            % name))
    assert str(e.value) == "Function %s already exists" % name
    with pytest.raises(ResponseError) as e:
        r.function_load(lib("empty", suffix, "local x = 1"))
    assert str(e.value) == "No functions registered"
    with pytest.raises(ResponseError) as e:
        r.function_load(lib("bad", suffix, "redis.register_function('f', function() end"))
    assert str(e.value).startswith("Error compiling function: user_function:2: ")
    with pytest.raises(ResponseError) as e:
        r.fcall("no_such_function_" + suffix, 0)
    assert str(e.value) == "Function not found"
    r.function_delete("dup_" + suffix)
    with pytest.raises(ResponseError) as e:
        r.function_delete("dup_" + suffix)
    assert str(e.value) == "Library not found"


def test_lock_library(r, suffix, lock_library):
    lock, fence = "lock:" + suffix, "fence:" + suffix
    token = r.fcall("acquire_" + suffix, 2, lock, fence, 30000)
    assert token == 1
    # Held: a second acquire fails, and still spends a fencing token.
    assert r.fcall("acquire_" + suffix, 2, lock, fence, 30000) is None
    assert r.fcall_ro("holder_" + suffix, 1, lock) == "1"
    assert 29000 < r.pttl(lock) <= 30000
    assert r.fcall("extend_" + suffix, 1, lock, "1", 60000) == 1
    assert 59000 < r.pttl(lock) <= 60000
    assert r.fcall("release_" + suffix, 1, lock, "999") == 0
    assert r.fcall("release_" + suffix, 1, lock, "1") == 1
    assert r.exists(lock) == 0
    assert r.fcall("acquire_" + suffix, 2, lock, fence, 30000) == 3


def test_fcall_ro_needs_the_no_writes_flag(r, suffix, lock_library):
    with pytest.raises(ResponseError) as e:
        r.fcall_ro("acquire_" + suffix, 2, "l", "f", 1000)
    assert str(e.value) == "Can not execute a script with write flag using *_ro command."
    code = lib("sneaky", suffix, "redis.register_function{function_name='sneaky_%s', "
               "callback=function(keys) return redis.call('set', keys[1], 'x') end, "
               "flags={'no-writes'}}" % suffix)
    r.function_load(code)
    with pytest.raises(ResponseError) as e:
        r.fcall("sneaky_" + suffix, 1, "k:" + suffix)
    assert str(e.value).startswith("Write commands are not allowed from read-only scripts.")
    assert r.exists("k:" + suffix) == 0
    r.function_delete("sneaky_" + suffix)


def test_function_list(r, suffix, lock_library):
    listed = r.function_list(library="locks_" + suffix)
    assert len(listed) == 1
    entry = listed[0]
    assert entry[:4] == ["library_name", "locks_" + suffix, "engine", "LUA"]
    assert entry[4] == "functions"
    functions = {f[1]: f for f in entry[5]}
    assert sorted(functions) == sorted(
        n + "_" + suffix for n in ("acquire", "release", "extend", "holder"))
    assert functions["holder_" + suffix] == [
        "name", "holder_" + suffix, "description", "who holds the lock", "flags", ["no-writes"]]
    assert functions["acquire_" + suffix] == [
        "name", "acquire_" + suffix, "description", None, "flags", []]
    with_code = r.function_list(library="LOCKS_" + suffix[:4] + "*", withcode=True)
    assert [e[1] for e in with_code] == ["locks_" + suffix]
    assert with_code[0][6:] == ["library_code", lock_library]
    assert r.function_list(library="nothing_matches_" + suffix) == []


def test_function_stats_and_kill_when_idle(r, suffix, lock_library):
    stats = r.function_stats()
    assert stats[0:2] == ["running_script", None]
    assert stats[2] == "engines"
    engines = stats[3]
    assert engines[0] == "LUA"
    counts = dict(zip(engines[1][::2], engines[1][1::2]))
    assert counts["libraries_count"] >= 1
    assert counts["functions_count"] >= 4
    with pytest.raises(ResponseError) as e:
        r.function_kill()
    assert str(e.value) == "NOTBUSY No scripts in execution right now."


def test_pipeline_and_transaction(r, suffix, lock_library):
    lock, fence = "plock:" + suffix, "pfence:" + suffix
    with r.pipeline(transaction=True) as p:
        p.fcall("acquire_" + suffix, 2, lock, fence, 10000)
        p.fcall_ro("holder_" + suffix, 1, lock)
        p.fcall("release_" + suffix, 1, lock, "1")
        assert p.execute() == [1, "1", 1]
    with r.pipeline(transaction=False) as p:
        p.fcall("acquire_" + suffix, 2, lock, fence, 10000)
        p.fcall("no_such_" + suffix, 0)
        p.get(fence)
        result = p.execute(raise_on_error=False)
    assert result[0] == 2
    assert isinstance(result[1], ResponseError) and str(result[1]) == "Function not found"
    assert result[2] == "2"


def test_exec_refuses_a_queued_write_function_past_maxmemory(target, connections, r, suffix):
    """The queued FCALL counts as a write that may grow memory (its function has no flags), as
    Redis folds a function's flags into the transaction's when it is queued."""
    r.function_load(lib("oom", suffix, "redis.register_function('oomw_%s', function(keys, args)"
                        " return redis.call('set', keys[1], args[1]) end)\n"
                        "redis.register_function{function_name='oomr_%s', callback=function(keys)"
                        " return redis.call('get', keys[1]) end, flags={'no-writes'}}"
                        % (suffix, suffix)))
    tx = connections(target.port, decode_responses=True, single_connection_client=True)
    other = connections(target.port, decode_responses=True)
    assert tx.execute_command("MULTI") == "OK"
    assert tx.execute_command("FCALL", "oomw_" + suffix, 1, "oom:" + suffix, "v") == "QUEUED"
    assert tx.execute_command("FCALL", "oomr_" + suffix, 1, "oom:" + suffix) == "QUEUED"
    old = other.config_get("maxmemory")["maxmemory"]
    other.config_set("maxmemory", 1)
    try:
        with pytest.raises(ResponseError) as e:
            tx.execute_command("EXEC")
        assert str(e.value) == ("Transaction discarded because of: OOM command not allowed "
                                "when used memory > 'maxmemory'.")
    finally:
        other.config_set("maxmemory", old)
    assert r.exists("oom:" + suffix) == 0
    # Without the write function the transaction runs.
    assert tx.execute_command("MULTI") == "OK"
    assert tx.execute_command("FCALL", "oomr_" + suffix, 1, "oom:" + suffix) == "QUEUED"
    other.config_set("maxmemory", 1)
    try:
        assert tx.execute_command("EXEC") == [None]
    finally:
        other.config_set("maxmemory", old)
    r.function_delete("oom_" + suffix)


def test_libraries_survive_script_flush(r, suffix, lock_library):
    r.script_flush()
    assert r.fcall("acquire_" + suffix, 2, "sf:" + suffix, "sff:" + suffix, 1000) == 1
    assert [e[1] for e in r.function_list(library="locks_" + suffix)] == ["locks_" + suffix]


def test_function_flush(r, suffix):
    r.function_load(lib("flushme", suffix, "redis.register_function('fm_%s', function() "
                        "return 1 end)" % suffix))
    assert r.function_flush() is True
    assert r.function_list() == []
    with pytest.raises(ResponseError):
        r.fcall("fm_" + suffix, 0)
    assert r.function_flush("ASYNC") is True
