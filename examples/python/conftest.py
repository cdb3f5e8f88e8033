"""The pytest fixtures of warden_testing.py: `warden_server`, one warden per session on a port
the kernel picks, and `warden`, a redis-py client on it with a clean slate for every test."""
from warden_testing import warden, warden_server  # noqa: F401
