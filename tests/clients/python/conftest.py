"""Fixtures shared by the Python suites: every test runs once per server.

tests/clients/run.sh starts three redis-server and three warden instances and exports their
ports as REDIS_PORTS and WARDEN_PORTS ("p1 p2 p3"). A test takes the `target` fixture and runs
against target.port; its id ends in [redis-server] or [warden], so a failure names its server.
"""

import os
from dataclasses import dataclass

import pytest
import redis


@dataclass(frozen=True)
class Target:
    name: str  # "redis-server" or "warden"
    ports: tuple

    @property
    def port(self):
        return self.ports[0]


def _ports(variable):
    value = os.environ.get(variable)
    if not value:
        raise pytest.UsageError(
            "%s is not set: run these tests through tests/clients/run.sh" % variable)
    return tuple(int(p) for p in value.split())


def targets():
    return {"redis-server": Target("redis-server", _ports("REDIS_PORTS")),
            "warden": Target("warden", _ports("WARDEN_PORTS"))}


@pytest.fixture(params=["redis-server", "warden"])
def target(request):
    return targets()[request.param]


@pytest.fixture
def reference():
    """The redis-server target, for byte-for-byte comparisons from warden's tests."""
    return targets()["redis-server"]


@pytest.fixture
def connections():
    """connections(port, **options): a new redis-py client (10 s socket timeout unless the
    options say otherwise), closed at the end of the test."""
    made = []

    def connect(port, **options):
        options.setdefault("socket_timeout", 10)
        client = redis.Redis(port=port, **options)
        made.append(client)
        return client

    yield connect
    for client in made:
        client.close()
