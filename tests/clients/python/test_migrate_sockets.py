"""MIGRATE keeps its connection to a target between calls, as Redis's migrateCachedSocket does:
one connection per host:port, a SELECT only when the database changes (or after the target
answered an error), a retry on a new connection when the cached one was closed, and the
connection closed after 10 idle seconds. Each case runs from redis-server and from warden to a
second redis-server, and the target's counters must move the same way for both sources.
"""

import pytest

from conftest import targets

TTL_S = 10


def target_counters(client):
    """The target's connections received and SELECTs and RESTOREs served so far."""
    stats = client.info("stats")
    commands = client.info("commandstats")
    return (stats["total_connections_received"],
            commands.get("cmdstat_select", {}).get("calls", 0),
            commands.get("cmdstat_restore", {}).get("calls", 0))


def migrate(source, port, key, db, *options):
    return source.execute_command("MIGRATE", "127.0.0.1", port, key, db, 5000, *options)


def migrate_connections(client):
    return [c for c in client.client_list() if c["cmd"] == "restore"]


def drop_migrate_connections(client):
    for c in migrate_connections(client):
        client.client_kill_filter(_id=c["id"])


def run_sequence(source, dest, dest_port):
    """Counters moved by each step on the target, from a state without a cached connection."""
    steps = []
    before = target_counters(dest)

    def step(name, reply):
        nonlocal before
        after = target_counters(dest)
        steps.append((name, reply, tuple(a - b for a, b in zip(after, before))))
        before = after

    for i in range(3):
        source.set(f"mig:{i}", i)
    step("first, db 0", migrate(source, dest_port, "mig:0", 0))
    step("again, db 0", migrate(source, dest_port, "mig:1", 0))
    step("db 1", migrate(source, dest_port, "mig:2", 1))
    source.set("mig:0", "again")
    # The key is at the target already: an error, after which the database is not trusted.
    with pytest.raises(Exception) as busy:
        migrate(source, dest_port, "mig:0", 0)
    step("busy key: " + str(busy.value), None)
    step("after an error, same db", migrate(source, dest_port, "mig:0", 0, "REPLACE"))
    drop_migrate_connections(dest)
    source.set("mig:0", "third")
    step("the target closed it", migrate(source, dest_port, "mig:0", 0, "REPLACE"))
    return steps


@pytest.fixture
def destination(reference, connections):
    """A redis-server to migrate to, its databases 0 and 1 emptied first."""
    port = reference.ports[1]
    client = connections(port, decode_responses=True)
    drop_migrate_connections(client)
    client.flushall()
    return port, client


def test_the_connection_is_reused_and_selects_only_when_needed(target, destination, reference,
                                                              connections):
    dest_port, dest = destination
    got = run_sequence(connections(target.port, decode_responses=True), dest, dest_port)

    expected = [
        ("first, db 0", "OK", (1, 1, 1)),
        ("again, db 0", "OK", (0, 0, 1)),
        ("db 1", "OK", (0, 1, 1)),
        ("busy key: Target instance replied with error: BUSYKEY Target key name already "
         "exists.", None, (0, 1, 1)),
        ("after an error, same db", "OK", (0, 1, 1)),
        ("the target closed it", "OK", (1, 1, 1)),
    ]
    # A SELECT of db 0 after db 1: the busy-key step selects again, as Redis does.
    assert got == expected
    assert len(migrate_connections(dest)) == 1


def test_an_idle_connection_is_closed_after_ten_seconds(destination, connections):
    """On warden's clock, so the test moves it rather than waiting (Redis: server.unixtime).
    DEBUG CLOCK ADVANCE closes it before it answers, and the close reaches the target on
    loopback before the next request does."""
    dest_port, dest = destination
    source = connections(targets()["warden"].port, decode_responses=True)
    source.set("idle:a", 1)
    assert migrate(source, dest_port, "idle:a", 0) == "OK"
    assert len(migrate_connections(dest)) == 1
    source.execute_command("DEBUG", "CLOCK", "FREEZE")
    try:
        source.execute_command("DEBUG", "CLOCK", "ADVANCE", (TTL_S - 1) * 1000)
        source.ping()
        assert len(migrate_connections(dest)) == 1
        source.execute_command("DEBUG", "CLOCK", "ADVANCE", 2000)
        assert migrate_connections(dest) == []
    finally:
        source.execute_command("DEBUG", "CLOCK", "REAL")
