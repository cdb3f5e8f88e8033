"""ACL users through redis-py, on redis-server and warden: two teams sharing one server, the
ACL LOG entries denials leave, and what deleting or narrowing a user does to its connections.

Every test makes its own users (names with the test's own prefix) and deletes them at the end,
so the three servers of a run stay as they started. Exact texts are asserted; where a value is
the server's own (ages, client ids), its form is.
"""

import hashlib

import pytest
import redis

from resp_conn import Conn

NOPERM_KEYS = "this user has no permissions to access one of the keys used as arguments"
NOPERM_CHANNELS = ("this user has no permissions to access one of the channels used as "
                   "arguments")
SCRIPT_KEYS = ("The user executing the script can't access at least one of the keys mentioned "
               "in the command arguments")
RELEASE = ("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
           "else return 0 end")


@pytest.fixture
def admin(target, connections):
    client = connections(target.port)
    made = []

    def setuser(name, *rules):
        made.append(name)
        assert client.execute_command("ACL", "SETUSER", name, *rules) == b"OK"

    client.setuser = setuser
    client.execute_command("ACL", "LOG", "RESET")
    yield client
    if made:
        client.execute_command("ACL", "DELUSER", *made)
    client.execute_command("ACL", "LOG", "RESET")


def error_text(call):
    with pytest.raises(redis.ResponseError) as caught:
        call()
    return str(caught.value)


def test_two_teams_cannot_touch_each_others_locks(target, admin, connections):
    admin.setuser("acl_teama", "on", ">pa", "~teamA:*", "&teamA.*", "+@all", "-@dangerous")
    admin.setuser("acl_teamb", "on", ">pb", "~teamB:*", "&teamB.*", "+@all", "-@dangerous")
    a = connections(target.port, username="acl_teama", password="pa")
    b = connections(target.port, username="acl_teamb", password="pb")
    assert b.set("teamB:lock", "b-token", nx=True, px=30000) is True

    # Team A holds its own lock as usual.
    assert a.set("teamA:lock", "a-token", nx=True, px=30000) is True
    assert a.eval(RELEASE, 1, "teamA:lock", "a-token") == 1

    # ... and can neither read, take, extend nor release team B's, by command or by script.
    for call in (lambda: a.get("teamB:lock"),
                 lambda: a.set("teamB:lock", "a-token", nx=True, px=30000),
                 lambda: a.set("teamB:lock", "a-token", xx=True),
                 lambda: a.pexpire("teamB:lock", 60000),
                 lambda: a.delete("teamB:lock"),
                 lambda: a.eval(RELEASE, 1, "teamB:lock", "b-token")):
        assert error_text(call) == NOPERM_KEYS
    script = "return redis.call('del', 'teamB:lock')"
    assert error_text(lambda: a.eval(script, 0)).startswith(SCRIPT_KEYS + " script: ")
    assert error_text(lambda: a.execute_command("FLUSHALL")) == (
        "this user has no permissions to run the 'flushall' command")

    # Nor hear or publish team B's wake-ups.
    assert error_text(lambda: a.publish("teamB.released", "x")) == NOPERM_CHANNELS
    assert a.publish("teamA.released", "x") == 0
    sub = a.pubsub()
    with pytest.raises(redis.ResponseError) as caught:
        sub.subscribe("teamB.released")
        sub.get_message(timeout=5)
    assert str(caught.value) == NOPERM_CHANNELS
    sub.close()

    # Team B's lock is untouched, with its TTL.
    assert b.get("teamB:lock") == b"b-token"
    assert 29000 <= b.pttl("teamB:lock") <= 30000
    assert b.eval(RELEASE, 1, "teamB:lock", "b-token") == 1


def test_log_records_denials_with_redis_fields(target, admin, connections):
    admin.setuser("acl_logged", "on", ">pw", "~mine:*", "&mine", "-@all", "+get", "+set",
                  "+publish", "+eval", "+multi", "+exec", "+client|setname")
    user = connections(target.port, username="acl_logged", password="pw")
    user.client_setname("logged-client")
    for _ in range(3):
        with pytest.raises(redis.ResponseError):
            user.get("other:1")
    with pytest.raises(redis.ResponseError):
        user.publish("theirs", "m")
    with pytest.raises(redis.ResponseError):
        user.execute_command("DEL", "mine:1")
    with pytest.raises(redis.ResponseError):
        user.eval("return redis.call('get', 'other:2')", 0)
    pipe = user.pipeline(transaction=True)
    pipe.get("other:3")
    with pytest.raises(redis.ResponseError):
        pipe.execute()
    with pytest.raises(redis.ResponseError):
        connections(target.port, username="acl_logged", password="wrong").ping()

    entries = admin.acl_log()
    seen = [(e["reason"], e["context"], e["object"], e["username"], e["count"])
            for e in entries]
    assert seen == [
        ("auth", "toplevel", "AUTH", "acl_logged", 1),
        ("key", "multi", "other:3", "acl_logged", 1),
        ("key", "lua", "other:2", "acl_logged", 1),
        ("command", "toplevel", "del", "acl_logged", 1),
        ("channel", "toplevel", "theirs", "acl_logged", 1),
        ("key", "toplevel", "other:1", "acl_logged", 3),
    ]
    for e in entries:
        assert isinstance(e["age-seconds"], float) and 0 <= e["age-seconds"] < 60
    info = entries[-1]["client-info"]
    # redis-py parses it as CLIENT LIST's fields.
    assert (info["name"], info["user"], info["cmd"]) == ("logged-client", "acl_logged", "get")
    # ACL LOG 2 is the two newest entries (ages aside: time passes between the two calls).
    def without_age(entries):
        return [[v for i, v in enumerate(e) if i not in (10, 11)] for e in entries]
    newest = admin.execute_command("ACL", "LOG", "2")
    assert len(newest) == 2
    assert without_age(newest) == without_age(admin.execute_command("ACL", "LOG")[:2])
    assert admin.execute_command("ACL", "LOG", "RESET") == b"OK"
    assert admin.execute_command("ACL", "LOG") == []


def test_deleting_a_user_closes_its_connections(target, admin):
    admin.setuser("acl_gone", "on", ">pw", "~*", "+@all")
    doomed = [Conn(target.port) for _ in range(2)]
    for c in doomed:
        assert c.call("AUTH", "acl_gone", "pw") == b"+OK\r\n"
        assert c.call("ACL", "WHOAMI") == b"$8\r\nacl_gone\r\n"
    ids = [str(c.id()) for c in doomed]
    listed = admin.execute_command("CLIENT", "LIST", "ID", *ids).decode()
    assert listed.count(" user=acl_gone ") == 2

    assert admin.execute_command("ACL", "DELUSER", "acl_gone") == 1
    for c in doomed:
        assert c.read_until_eof() == b""
        c.close()
    assert b"acl_gone" not in admin.execute_command("ACL", "USERS")
    # A connection deleting its own user gets its reply, then is closed.
    admin.setuser("acl_self", "on", ">pw", "~*", "+@all")
    with Conn(target.port) as c:
        assert c.call("AUTH", "acl_self", "pw") == b"+OK\r\n"
        assert c.call("ACL", "DELUSER", "acl_self") == b":1\r\n"
        assert c.read_until_eof() == b""


def test_client_kill_user(target, admin, connections):
    admin.setuser("acl_killme", "on", "nopass", "~*", "+@all")
    victim = connections(target.port, username="acl_killme", password="x")
    victim.ping()
    assert admin.execute_command("CLIENT", "KILL", "USER", "acl_killme") == 1
    assert error_text(lambda: admin.execute_command("CLIENT", "KILL", "USER", "acl_nobody")) == (
        "No such user 'acl_nobody'")


def test_exec_checks_rules_changed_after_queueing(target, admin, connections):
    admin.setuser("acl_changing", "on", "nopass", "~*", "+@all")
    user = connections(target.port, username="acl_changing", password="x")
    conn = user.connection_pool.get_connection("MULTI")
    try:
        for cmd in (("MULTI",), ("SET", "acl:k", "v"), ("GET", "acl:k")):
            conn.send_command(*cmd)
            conn.read_response()
        admin.setuser("acl_changing", "-set")
        conn.send_command("EXEC")
        replies = conn.read_response()
    finally:
        user.connection_pool.release(conn)
    assert isinstance(replies[0], redis.ResponseError)
    assert str(replies[0]) == (
        "ACLs rules changed between the moment the transaction was accumulated and the EXEC "
        "call. This command is no longer allowed for the following reason: no permission to "
        "execute the command or subcommand")
    assert replies[1] is None
    (entry,) = admin.acl_log()
    assert (entry["reason"], entry["context"], entry["object"]) == ("command", "multi", "set")


def test_narrowed_channels_close_subscribers_that_lost_them(target, admin, connections):
    admin.setuser("acl_listener", "on", "nopass", "~*", "&jobs.*", "&other", "+@all")
    keeps = connections(target.port, username="acl_listener", password="x").pubsub()
    keeps.subscribe("jobs.done")
    loses = connections(target.port, username="acl_listener", password="x").pubsub()
    loses.psubscribe("other")
    for p in (keeps, loses):
        assert p.get_message(timeout=5)["type"] in ("subscribe", "psubscribe")

    admin.setuser("acl_listener", "resetchannels", "&jobs.*")
    assert admin.publish("jobs.done", "m") == 1
    assert keeps.get_message(timeout=5)["data"] == b"m"
    with pytest.raises(redis.ConnectionError):
        loses.connection.read_response()
    keeps.close()


def test_requirepass_is_the_default_users_password(target, admin, connections):
    try:
        admin.config_set("requirepass", "s3cret")
        (default,) = [u for u in admin.execute_command("ACL", "LIST")
                      if u.startswith(b"user default ")]
        digest = hashlib.sha256(b"s3cret").hexdigest().encode()
        assert default == b"user default on #" + digest + b" ~* &* +@all"
        fresh = connections(target.port)
        with pytest.raises(redis.AuthenticationError) as caught:
            fresh.ping()
        assert str(caught.value) == "Authentication required."
        with pytest.raises(redis.ResponseError) as caught:
            connections(target.port, password="wrong").ping()
        assert str(caught.value) == (
            "WRONGPASS invalid username-password pair or user is disabled.")
        assert connections(target.port, password="s3cret").ping() is True
        assert connections(target.port, username="default", password="s3cret").ping() is True
    finally:
        admin.config_set("requirepass", "")
    assert b" nopass " in [u for u in admin.execute_command("ACL", "LIST")
                           if u.startswith(b"user default ")][0]
