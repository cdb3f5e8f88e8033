#!/usr/bin/env python3
"""What `cmake --install` and `cpack -G DEB` ship, checked from a build directory.

Installs into a staging root (DESTDIR) and packs the .deb into a temporary directory, then
checks: the file list of each (the same files, at the paths the configured prefix gives;
the server in warden, the embedded server in warden-dev);
the systemd unit, by `systemd-analyze verify`; the man page, by groff with warnings on; the
maintainer scripts, by `sh -n`; and the installed binary, started with the installed
warden.conf, answering PING with the config's defaults; and the C++ example of the embedded
server, built against the staged install with CMake's find_package and with pkg-config.
"""
import argparse
import gzip
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import time
import unittest

BUILD = None
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cache_value(name):
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    raise KeyError(name)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def lib_dir(prefix):
    """GNUInstallDirs' libdir: Debian's multiarch folder under /usr, lib elsewhere."""
    if prefix != "/usr":
        return prefix + "/lib"
    arch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip()
    return prefix + "/lib/" + arch


def expected_files():
    """The configured prefix, its /etc, and each package's files: server and dev."""
    prefix = cache_value("CMAKE_INSTALL_PREFIX")
    etc = "/etc" if prefix == "/usr" else prefix + "/etc"
    lib = lib_dir(prefix)
    server = {
        prefix + "/bin/warden",
        etc + "/warden/warden.conf",
        prefix + "/lib/systemd/system/warden.service",
        prefix + "/share/man/man1/warden.1.gz",
        prefix + "/share/doc/warden/LICENSE",
        prefix + "/share/doc/warden/CHANGELOG.md",
    }
    dev = {
        prefix + "/include/warden/embedded_server.h",
        lib + "/libwarden-embedded.a",
        lib + "/cmake/warden/wardenConfig.cmake",
        lib + "/cmake/warden/wardenConfigVersion.cmake",
        lib + "/pkgconfig/warden-embedded.pc",
    }
    return prefix, etc, {"server": server, "dev": dev}


def files_under(root):
    found = set()
    for d, _, names in os.walk(root):
        for n in names:
            found.add("/" + os.path.relpath(os.path.join(d, n), root))
    return found


def wait_ready(server, timeout_s=30):
    """Reads the server's log until it says it accepts connections, or fails."""
    # Raw reads of the pipe: a buffered readline could take several lines at once and leave
    # select() waiting on an empty pipe.
    deadline = time.monotonic() + timeout_s
    fd = server.stdout.fileno()
    log = ""
    while "Ready to accept connections" not in log:
        left = deadline - time.monotonic()
        assert left > 0, "warden is not ready: " + log
        readable, _, _ = select.select([fd], [], [], left)
        if readable:
            chunk = os.read(fd, 65536)
            assert chunk, "warden exited: " + log
            log += chunk.decode(errors="replace")


def command(port, *words):
    """One request over RESP, its reply's raw bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        frame = b"*%d\r\n" % len(words)
        for w in words:
            w = w.encode()
            frame += b"$%d\r\n%s\r\n" % (len(w), w)
        s.sendall(frame)
        reply = b""
        while not reply.endswith(b"\r\n") or (reply.startswith(b"*") and reply.count(b"\r\n") < 5):
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
        return reply


class Installed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="warden-install-")
        cls.root = os.path.join(cls.tmp.name, "root")
        run(["cmake", "--install", BUILD], env=dict(os.environ, DESTDIR=cls.root))
        cls.prefix, cls.etc, cls.want = expected_files()
        cls.lib = lib_dir(cls.prefix)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_files(self):
        self.assertEqual(files_under(self.root), self.want["server"] | self.want["dev"])
        self.assertTrue(os.access(self.root + self.prefix + "/bin/warden", os.X_OK))

    def test_unit_names_the_installed_binary_and_config_and_verifies(self):
        unit_path = self.root + self.prefix + "/lib/systemd/system/warden.service"
        with open(unit_path) as f:
            unit = f.read()
        binary = self.prefix + "/bin/warden"
        conf = self.etc + "/warden/warden.conf"
        self.assertIn("\nType=notify\n", unit)
        self.assertIn(f"\nExecStart={binary} {conf} --supervised systemd --daemonize no\n", unit)
        # systemd-analyze wants the binary where ExecStart says: point it into the staging root.
        staged = os.path.join(self.tmp.name, "warden.service")
        with open(staged, "w") as f:
            f.write(unit.replace(binary, self.root + binary))
        out = subprocess.run(["systemd-analyze", "verify", "--man=no", staged],
                             capture_output=True, text=True)
        self.assertEqual((out.returncode, out.stdout + out.stderr), (0, ""))

    def test_man_page_renders_without_warnings(self):
        with gzip.open(self.root + self.prefix + "/share/man/man1/warden.1.gz", "rt") as f:
            page = f.read()
        out = subprocess.run(["groff", "-man", "-Tutf8", "-ww"], input=page,
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0)
        self.assertEqual(out.stderr, "")
        text = re.sub(r".\x08", "", out.stdout)
        self.assertIn("--maxmemory-policy", text)
        self.assertIn("Default: noeviction.", text)

    def test_installed_binary_starts_with_the_installed_config(self):
        conf = self.root + self.etc + "/warden/warden.conf"
        with open(conf) as f:
            text = f.read()
        state = "/var/lib/warden" if self.prefix == "/usr" else self.prefix + "/var/lib/warden"
        self.assertIn(f"\ndir {state}\n", text)
        data = os.path.join(self.tmp.name, "data")
        os.mkdir(data)
        port_file = os.path.join(self.tmp.name, "port")
        server = subprocess.Popen(
            [self.root + self.prefix + "/bin/warden", conf, "--port", "0", "--dir", data,
             "--port-file", port_file, "--save", ""],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            # The port file is written before the log says so.
            wait_ready(server)
            with open(port_file) as f:
                port = int(f.read())
            self.assertEqual(command(port, "PING"), b"+PONG\r\n")
            self.assertEqual(command(port, "CONFIG", "GET", "maxmemory-policy"),
                             b"*2\r\n$16\r\nmaxmemory-policy\r\n$10\r\nnoeviction\r\n")
        finally:
            server.terminate()
            server.wait(timeout=30)


    def test_embedded_server_builds_with_cmake_and_with_pkg_config(self):
        """The consumer example, as a user builds it: find_package, or pkg-config's flags."""
        example = os.path.join(SOURCE, "clients", "cpp", "example")
        cmake_build = os.path.join(self.tmp.name, "consumer")
        run(["cmake", "-S", example, "-B", cmake_build,
             "-DCMAKE_PREFIX_PATH=" + self.root + self.prefix])
        run(["cmake", "--build", cmake_build])
        out = run([os.path.join(cmake_build, "lease_test")]).stdout
        self.assertRegex(out, r"^taken=1 expired=1 port=\d+\n$")

        env = dict(os.environ, PKG_CONFIG_PATH=self.root + self.lib + "/pkgconfig")
        flags = run(["pkg-config", "--cflags", "--libs", "warden-embedded"], env=env).stdout.split()
        binary = os.path.join(self.tmp.name, "lease_test_pc")
        run(["g++", "-std=c++17", "-o", binary, os.path.join(example, "lease_test.cc")] + flags)
        self.assertRegex(run([binary]).stdout, r"^taken=1 expired=1 port=\d+\n$")


class Packaged(unittest.TestCase):
    def test_debs_hold_the_installed_files_and_the_server_its_scripts(self):
        prefix, etc, want = expected_files()
        with tempfile.TemporaryDirectory(prefix="warden-deb-") as out:
            run(["cpack", "-G", "DEB", "-B", out, "--config",
                 os.path.join(BUILD, "CPackConfig.cmake")], cwd=BUILD)
            debs = {n.split("_")[0]: os.path.join(out, n) for n in os.listdir(out)
                    if n.endswith(".deb")}
            self.assertEqual(sorted(debs), ["warden", "warden-dev"])
            server, dev = debs["warden"], debs["warden-dev"]
            for deb, component in ((server, "server"), (dev, "dev")):
                listing = run(["dpkg-deb", "-c", deb]).stdout
                files = {line.split()[-1][1:] for line in listing.splitlines()
                         if line.startswith("-")}
                self.assertEqual(files, want[component])
            self.assertIn("libc6", run(["dpkg-deb", "-f", server, "Depends"]).stdout)
            self.assertIn("libuv1-dev", run(["dpkg-deb", "-f", dev, "Depends"]).stdout)
            control = os.path.join(out, "control")
            run(["dpkg-deb", "-e", server, control])
            with open(os.path.join(control, "conffiles")) as f:
                self.assertEqual(f.read(), etc + "/warden/warden.conf\n")
            for script in ("postinst", "prerm", "postrm"):
                path = os.path.join(control, script)
                self.assertTrue(os.access(path, os.X_OK), script)
                run(["sh", "-n", path])
            with open(os.path.join(control, "postinst")) as f:
                self.assertIn("systemctl restart warden.service", f.read())
            extracted = os.path.join(out, "x")
            run(["dpkg-deb", "-x", server, extracted])
            version = run([extracted + prefix + "/bin/warden", "--version"]).stdout
            self.assertTrue(version.startswith("warden v="), version)

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    args, rest = parser.parse_known_args()
    BUILD = os.path.abspath(args.build_dir)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
