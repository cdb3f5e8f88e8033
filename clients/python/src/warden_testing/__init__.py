"""warden as the Redis of a Python test suite: a server per session, flushed between tests, and
the controls a test needs (a clock it moves, faults, a command log, snapshots).

Installed, the package registers a pytest plugin (warden_testing.plugin) with the fixtures
`warden` and `warden_client`; `Warden` runs a server outside pytest too.
"""

from warden_testing.server import (CommandLog, Fault, LoggedCommand, Warden, WardenError,
                                   find_binary)

__version__ = "0.1.0"
__all__ = ["CommandLog", "Fault", "LoggedCommand", "Warden", "WardenError", "find_binary"]
