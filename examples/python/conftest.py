"""A pytest fixture that runs warden as a throwaway Redis for a test.

warden starts on a port the kernel picks (--port 0) and writes it to a file once it accepts
connections, so parallel test jobs never race for a port. The test controls warden's clock
(DEBUG CLOCK), so a 30-second lease is checked without waiting 30 seconds.
"""
import os
import subprocess
import tempfile
import time

import pytest
import redis

WARDEN = os.environ.get("WARDEN_BINARY", "warden")


@pytest.fixture
def warden():
    with tempfile.TemporaryDirectory() as tmp:
        port_file = os.path.join(tmp, "port")
        proc = subprocess.Popen(
            [WARDEN, "--port", "0", "--port-file", port_file,
             "--enable-debug-command", "local", "--loglevel", "warning"])
        try:
            deadline = time.monotonic() + 10
            while not os.path.exists(port_file):
                assert proc.poll() is None, "warden exited during start-up"
                assert time.monotonic() < deadline, "warden did not start"
                time.sleep(0.001)
            with open(port_file) as f:
                port = int(f.read())
            client = redis.Redis(host="127.0.0.1", port=port, decode_responses=True)
            yield client
            client.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
