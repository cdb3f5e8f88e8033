"""run_all.py's tls section: the lock cycle over TLS, and new TLS connections, on both servers.

Both servers get a TLS port with the same certificates (made here with the openssl tool: a CA,
a server and a client certificate, RSA 2048) and Redis's default of requiring a client
certificate. In each round, on each server: bench/lockcycle over plain TCP (the floor), the same
over TLS, and `lockcycle --handshakes`: connections one after another, each timed from connect
through its handshake to the reply to one PING, with the server's CPU per connection.
"""

import os
import subprocess

from bench_core import ServerPair, find_lockcycle, free_port, lockcycle, measured
from cycle_sections import CYCLE_CONNECTIONS, add_row, cycle_check, run_paired

HANDSHAKES = 400


def make_certificates(tmp):
    d = os.path.join(tmp, "tls")
    os.makedirs(d, exist_ok=True)

    def run(*argv):
        subprocess.run(argv, check=True, cwd=d, capture_output=True)

    run("openssl", "genrsa", "-out", "ca.key", "2048")
    run("openssl", "req", "-x509", "-new", "-nodes", "-sha256", "-key", "ca.key", "-days", "30",
        "-subj", "/O=warden bench/CN=CA", "-out", "ca.crt")
    for name in ("server", "client"):
        run("openssl", "genrsa", "-out", f"{name}.key", "2048")
        run("openssl", "req", "-new", "-sha256", "-key", f"{name}.key", "-subj",
            f"/O=warden bench/CN={name}", "-out", f"{name}.csr")
        with open(os.path.join(d, f"{name}.ext"), "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\n")
        run("openssl", "x509", "-req", "-sha256", "-in", f"{name}.csr", "-CA", "ca.crt",
            "-CAkey", "ca.key", "-CAcreateserial", "-days", "30", "-extfile", f"{name}.ext",
            "-out", f"{name}.crt")
    return d


def tls_section(args, tmp, out):
    binary = find_lockcycle(args, tmp)
    certs = make_certificates(tmp)
    tls_ports = {"warden": free_port(), "redis": free_port()}

    def per_server(name):
        return ["--tls-port", str(tls_ports[name]),
                "--tls-cert-file", os.path.join(certs, "server.crt"),
                "--tls-key-file", os.path.join(certs, "server.key"),
                "--tls-ca-cert-file", os.path.join(certs, "ca.crt")]

    client_files = ["--tls", "--cacert", os.path.join(certs, "ca.crt"),
                    "--cert", os.path.join(certs, "client.crt"),
                    "--key", os.path.join(certs, "client.key")]

    def over_tls(server):
        return ["--port", str(tls_ports[server.name])] + client_files

    def measure(server, r):
        server.client.flushall()
        plain = measured(server, lambda: lockcycle(
            binary, server, args.cycle_seconds, r + 1, CYCLE_CONNECTIONS))
        plain["count"] = server.client.call("DBSIZE")
        tls = measured(server, lambda: lockcycle(
            binary, server, args.cycle_seconds, r + 1, CYCLE_CONNECTIONS,
            extra=over_tls(server)))
        tls["count"] = server.client.call("DBSIZE")
        handshakes = measured(server, lambda: lockcycle(
            binary, server, 0, r + 1, 1,
            extra=over_tls(server) + ["--handshakes", str(HANDSHAKES)]))
        return {"tls_lockcycle_plain": plain, "tls_lockcycle": tls,
                "tls_handshake": handshakes}

    with ServerPair(args, per_server=per_server) as servers:
        runs = run_paired(args, servers, measure)
    add_row(out, "tls_lockcycle_plain", "lock cycle (`bench/lockcycle`) over plain TCP, "
            f"{CYCLE_CONNECTIONS} connections, 1 request in flight each (the floor of the next "
            "row)", runs["tls_lockcycle_plain"],
            cycle_check(runs["tls_lockcycle_plain"], lambda r: 0))
    add_row(out, "tls_lockcycle", "the same over TLS (TLS 1.3, client certificates required)",
            runs["tls_lockcycle"], cycle_check(runs["tls_lockcycle"], lambda r: 0),
            floor="tls_lockcycle_plain", target=0.8)
    add_row(out, "tls_handshake", f"{HANDSHAKES} new TLS connections one after another, each "
            "timed from connect through the handshake to the reply to one PING; CPU per "
            "connection", runs["tls_handshake"], "—")
