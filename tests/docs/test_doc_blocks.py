"""Every fenced code block in README.md and docs/*.md is run or checked, so none drifts from the
binary.

    WARDEN_BINARY=build/warden /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/docs
    tests/clients/run.sh build/warden docs          # as run-tests.sh runs it

A block's info string says how it is checked; a block with none, or with another, fails:

  sh        Commands run by bash (errexit, pipefail) from the repository root; they must exit 0.
            `warden` and `build/warden` are the binary under test.
  sh norun  Not run: it builds, runs every test, or takes minutes. Each command must start a
            script of the repository that exists (or warden, cmake, cpack), and each --flag it
            passes must be in that script's --help (warden's for run-server.sh, which hands its
            arguments to warden). There are at most MAX_NORUN such blocks.
  console   A transcript: `$ command` lines (a trailing backslash continues one), each followed
            by its exact output. The test starts a warden for the block, in an empty directory
            that also holds a CA and certificates (ca.crt, server.crt/.key, client.crt/.key):
            at the line `$ warden ARGS &` (or `build/warden`, `./run-server.sh`) with those
            arguments, else before the first command, on a port the kernel picks. Each command
            runs in that directory, `warden` being the binary under test and `redis-cli` given
            the server's port (unless the command names one) and --no-raw, as at a terminal
            (unless it says --raw). Ports 6379-6399 in the arguments and commands are moved to
            free ones, 6379 to the server's. The server's own log is not part of the transcript.
  conf      A warden config file: warden must start with it and accept connections. Absolute
            paths in it are moved under a temporary directory (a `dir` is created; so are empty
            files for `aclfile`, and the test's certificates for `tls-*-file`s of their names).
  python    A pytest module, run with the warden-testing plugin (clients/python) loaded.
  yaml      A twemproxy pool: `nutcracker --test-conf` must accept it (skipped without nutcracker,
            which tests/clients/run.sh installs).
  cmake     An excerpt of clients/cpp/example/CMakeLists.txt, the consumer of the embedded
            server that tests/packaging/install_test.py builds against an install.

docs/performance.md's table between its bench markers must be what bench/run_all.py
--from-json renders from the results file it names; the option table of docs/operations.md
names only options `warden --help` lists; and relative links point at files and headings that
exist.
"""

import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WARDEN = os.path.abspath(os.environ.get("WARDEN_BINARY") or os.path.join(REPO, "build/warden"))
DOCS = ["README.md"] + sorted(
    os.path.join("docs", name) for name in os.listdir(os.path.join(REPO, "docs"))
    if name.endswith(".md"))
MAX_NORUN = 6
README_MAX_LINES = 250
COMMAND_TIMEOUT_S = 60
START_TIMEOUT_S = 10
# Ports a doc may name; the test moves each to a free one.
DOC_PORTS = re.compile(r"(?<![\w.])(63[89]\d|6379)(?![\w.])")
# Tools a `sh norun` block may start besides the repository's scripts; their flags are not
# checked.
NORUN_TOOLS = {"cmake", "cpack"}


@dataclass
class Block:
    path: str  # relative to the repository
    line: int  # of the opening fence, 1-based
    info: str
    body: str

    @property
    def lang(self):
        return self.info.split()[0] if self.info else ""

    @property
    def id(self):
        return f"{self.path}:{self.line}:{self.info or 'unlabelled'}"


def read_blocks(path):
    """The fenced blocks of a markdown file; a fence may be indented (inside a list item), and
    that indentation is taken off its lines."""
    blocks = []
    lines = open(os.path.join(REPO, path)).read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^( *)(```+)(.*)$", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).strip()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        assert i < len(lines), f"{path}:{start}: a code block is not closed"
        blocks.append(Block(path, start, info, "\n".join(body) + "\n"))
        i += 1
    return blocks


BLOCKS = [b for path in DOCS for b in read_blocks(path)]


# --- helpers --------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PortMap:
    """Moves the ports a doc names (6379-6399) to free ones, the same one each time."""

    def __init__(self):
        self.ports = {}

    def port(self, doc_port):
        if doc_port not in self.ports:
            self.ports[doc_port] = str(free_port())
        return self.ports[doc_port]

    def apply(self, text):
        return DOC_PORTS.sub(lambda m: self.port(m.group(1)), text)


def shim_env(tmp):
    """The environment commands run in: `warden` on PATH is the binary under test."""
    bin_dir = os.path.join(tmp, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    link = os.path.join(bin_dir, "warden")
    if not os.path.exists(link):
        os.symlink(WARDEN, link)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"],
               WARDEN_BINARY=WARDEN, PYTHONDONTWRITEBYTECODE="1")
    return env


def with_binary(command):
    """`build/warden` in a command is the binary under test."""
    return re.sub(r"(?<![\w/.-])(\./)?build/warden\b", WARDEN, command)


def wait_for_port_file(path, alive, log):
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                text = f.read().strip()
            if text:
                return int(text)
        except FileNotFoundError:
            pass
        if not alive():
            break
        time.sleep(0.01)
    pytest.fail("warden did not start:\n" + open(log).read())


class Server:
    """A warden started by the test, stopped by its pid (a daemon's from its pidfile)."""

    def __init__(self, argv, cwd, pid_file=None):
        if "--port-file" in argv:  # the doc's own
            self.port_file = os.path.join(cwd, argv[argv.index("--port-file") + 1])
        else:
            self.port_file = os.path.join(cwd, ".port")
            argv = [*argv, "--port-file", self.port_file]
        self.log = os.path.join(cwd, ".warden.log")
        self.pid_file = pid_file
        with open(self.log, "w") as log:
            self.process = subprocess.Popen([WARDEN, *argv], cwd=cwd, stdout=log,
                                            stderr=subprocess.STDOUT)
        self.port = wait_for_port_file(self.port_file, self.alive, self.log)

    def daemon_pid(self):
        try:
            with open(self.pid_file) as f:
                return int(f.read())
        except (FileNotFoundError, ValueError):
            return None

    def alive(self):
        if self.pid_file is None:
            return self.process.poll() is None
        pid = self.daemon_pid()
        if pid is None:  # not written yet: the daemon is starting, or its parent failed
            return self.process.poll() in (None, 0)
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False

    def stop(self):
        pid = self.daemon_pid() if self.pid_file else None
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + START_TIMEOUT_S
            while self.alive() and time.monotonic() < deadline:
                time.sleep(0.01)
        elif self.alive():
            self.process.terminate()
        try:
            self.process.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="session")
def certificates(tmp_path_factory):
    """A CA and a server and a client certificate it signed, as tests/clients/run.sh makes."""
    d = tmp_path_factory.mktemp("tls")

    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)
    openssl("genrsa", "-out", "ca.key", "2048")
    openssl("req", "-x509", "-new", "-nodes", "-sha256", "-key", "ca.key", "-days", "30",
            "-subj", "/O=warden docs/CN=Certificate Authority", "-out", "ca.crt")
    for name in ("server", "client"):
        openssl("genrsa", "-out", f"{name}.key", "2048")
        openssl("req", "-new", "-sha256", "-key", f"{name}.key", "-subj",
                f"/O=warden docs/CN={name}", "-out", f"{name}.csr")
        (d / f"{name}.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        openssl("x509", "-req", "-sha256", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey",
                "ca.key", "-CAcreateserial", "-days", "30", "-extfile", f"{name}.ext", "-out",
                f"{name}.crt")
    return {name: str(d / name) for name in
            ("ca.crt", "server.crt", "server.key", "client.crt", "client.key")}


@pytest.fixture
def workdir():
    # Short, so that a unix socket path in it stays under the kernel's 108 bytes.
    d = tempfile.mkdtemp(prefix="wdoc.")
    yield d
    shutil.rmtree(d, ignore_errors=True)


# --- the rules ------------------------------------------------------------------------------

def check_sh(block, workdir):
    assert block.info == "sh", "sh blocks are `sh` (run) or `sh norun`"
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", with_binary(block.body)],
                          cwd=REPO, env=shim_env(workdir), capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT_S)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"


def commands_of(body):
    """A shell block's commands, continuation lines joined and comments dropped."""
    commands, current = [], ""
    for line in body.split("\n"):
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        current += line
        words = shlex.split(current, comments=True)
        if words:
            commands.append(words)
        current = ""
    return commands


def help_text(argv):
    done = subprocess.run(argv + ["--help"], cwd=REPO, capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT_S)
    return done.stdout + done.stderr


def check_norun(block):
    for words in commands_of(block.body):
        while words and re.match(r"^\w+=", words[0]):
            words = words[1:]
        program, args = words[0], words[1:]
        if program in NORUN_TOOLS:
            assert shutil.which(program), f"{program} is not installed"
            continue
        if program in ("python3", "/usr/bin/python3"):
            program, args = args[0], args[1:]
        path = os.path.join(REPO, program)
        if program in ("warden", "build/warden"):
            known = help_text([WARDEN])
        else:
            assert os.path.isfile(path), f"{program} is not a file of the repository"
            if program.endswith(".py"):
                known = help_text([sys.executable, path])
            elif os.path.basename(program) == "run-server.sh":
                known = help_text([WARDEN])  # its arguments go to warden
            else:
                assert not args, f"{program} takes no arguments"
                known = ""
        for arg in args:
            if arg.startswith("--"):
                flag = arg.split("=", 1)[0]
                assert re.search(re.escape(flag) + r"\b", known), \
                    f"{program} has no option {flag}"


def parse_transcript(body):
    """[(command, expected output)] of a console block."""
    steps, lines = [], body.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        assert line.startswith("$ "), f"a transcript line before any command: {line!r}"
        command = line[2:]
        while command.endswith("\\"):
            i += 1
            command = command[:-1] + "\n" + lines[i]
        i += 1
        output = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        steps.append((command, "\n".join(output)))
    return steps


SERVER_START = re.compile(r"^(warden|build/warden|\./run-server\.sh)(\s.*)?\s&$", re.S)


def with_cli_defaults(command, port):
    """redis-cli as at a terminal on the block's server: the port unless one is named, and the
    formatted replies (--no-raw) unless --raw is asked for."""
    extra = ""
    if not re.search(r"(^|\s)(-p|-s|-u|-h)\s", command):
        extra += f" -p {port}"
    if not re.search(r"(^|\s)--(no-)?raw\b", command):
        extra += " --no-raw"
    return re.sub(r"(?<![\w-])redis-cli(?![\w-])", "redis-cli" + extra, command)


def check_console(block, workdir, certificates):
    assert block.info == "console", "console blocks take no arguments: start the server in " \
        "the transcript (`$ warden ARGS &`)"
    steps = parse_transcript(block.body)
    starts = [i for i, (command, _) in enumerate(steps) if SERVER_START.match(command)]
    assert len(starts) <= 1, "one server per transcript"
    for name, path in certificates.items():
        shutil.copy(path, os.path.join(workdir, name))
    ports, env, server = PortMap(), shim_env(workdir), None

    def start(args):
        if "--port" not in args:
            args += ["--port", "0"]  # the kernel picks it; the port file says which
        started = Server(args, workdir)
        ports.ports["6379"] = str(started.port)
        return started

    try:
        for i, (command, expected) in enumerate(steps):
            if i in starts:
                assert expected == "", "a server started in the background prints nothing here"
                server = start(shlex.split(ports.apply(SERVER_START.match(command).group(2) or
                                                       "")))
                continue
            if server is None and not starts:
                server = start([])
            port = server.port if server else ports.port("6379")
            actual = subprocess.run(
                ["bash", "-o", "pipefail", "-c", with_cli_defaults(ports.apply(command), port)],
                cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True, timeout=COMMAND_TIMEOUT_S).stdout.rstrip("\n")
            assert actual == expected, f"$ {command}"
            if server:
                assert server.alive(), f"warden exited after $ {command}:\n" + \
                    open(server.log).read()
    finally:
        if server:
            server.stop()


def check_conf(block, workdir, certificates):
    assert block.info == "conf", "conf blocks take no arguments"
    ports = PortMap()
    root = os.path.join(workdir, "root")
    out, has_port, pid_file = [], False, None
    for line in ports.apply(block.body).split("\n"):
        words = line.split()
        if not words or words[0].startswith("#"):
            out.append(line)
            continue
        name = words[0].lower()
        has_port |= name == "port"
        for word in words[1:]:
            if not word.startswith("/"):
                continue
            moved = root + word
            os.makedirs(moved if name == "dir" else os.path.dirname(moved), exist_ok=True)
            if name == "aclfile" and not os.path.exists(moved):
                open(moved, "w").close()
            if name.startswith("tls-") and os.path.basename(word) in certificates:
                shutil.copy(certificates[os.path.basename(word)], moved)
            if name == "pidfile":
                pid_file = moved
            line = line.replace(word, moved)
        out.append(line)
    conf = os.path.join(workdir, "warden.conf")
    with open(conf, "w") as f:
        f.write("\n".join(out))
    args = [conf] + ([] if has_port else ["--port", "0"])
    daemonized = re.search(r"^\s*daemonize\s+yes", block.body, re.M | re.I)
    assert not daemonized or pid_file, \
        "a daemonized example names its pidfile, so that it can be stopped"
    server = Server(args, workdir, pid_file if daemonized else None)
    try:
        assert server.alive(), open(server.log).read()
    finally:
        server.stop()


def check_python(block, workdir):
    assert block.info == "python", "python blocks take no arguments"
    module = os.path.join(workdir, "test_doc_block.py")
    with open(module, "w") as f:
        f.write(block.body)
    env = shim_env(workdir)
    # The package from its source tree, loaded by name, as an installed one loads itself.
    env["PYTHONPATH"] = os.path.join(REPO, "clients/python/src")
    env["WARDEN_BINARY"] = WARDEN
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "warden_testing.plugin", module], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    assert done.returncode == 0, done.stdout + done.stderr


def check_yaml(block, workdir):
    assert block.info == "yaml", "yaml blocks take no arguments"
    nutcracker = shutil.which("nutcracker") or shutil.which("/usr/sbin/nutcracker")
    if not nutcracker:
        pytest.skip("nutcracker is not installed (tests/clients/run.sh installs it)")
    conf = os.path.join(workdir, "pool.yml")
    with open(conf, "w") as f:
        f.write(block.body)
    done = subprocess.run([nutcracker, "--test-conf", "-c", conf], capture_output=True,
                          text=True, timeout=COMMAND_TIMEOUT_S)
    assert done.returncode == 0 and "syntax is ok" in done.stdout + done.stderr, \
        done.stdout + done.stderr


def check_cmake(block):
    """A CMake block is an excerpt of the C++ consumer example, which the packaging test builds
    against an install (tests/packaging/install_test.py)."""
    with open(os.path.join(REPO, "clients", "cpp", "example", "CMakeLists.txt")) as f:
        example = f.read()
    assert block.body in example, "not an excerpt of clients/cpp/example/CMakeLists.txt"


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block(block, request, workdir):
    if block.lang == "sh" and block.info.split()[1:] == ["norun"]:
        check_norun(block)
    elif block.lang == "sh":
        check_sh(block, workdir)
    elif block.lang == "console":
        check_console(block, workdir, request.getfixturevalue("certificates"))
    elif block.lang == "conf":
        check_conf(block, workdir, request.getfixturevalue("certificates"))
    elif block.lang == "python":
        check_python(block, workdir)
    elif block.lang == "yaml":
        check_yaml(block, workdir)
    elif block.lang == "cmake":
        check_cmake(block)
    else:
        pytest.fail(f"no rule runs a block labelled {block.info!r}: label it sh, sh norun, "
                    "console, conf, python, yaml or cmake (tests/docs/test_doc_blocks.py)")


def test_few_blocks_are_not_run():
    norun = [b.id for b in BLOCKS if b.info == "sh norun"]
    assert len(norun) <= MAX_NORUN, norun


def test_readme_is_short():
    with open(os.path.join(REPO, "README.md")) as f:
        assert len(f.read().split("\n")) <= README_MAX_LINES


def test_performance_table_is_generated():
    path = os.path.join(REPO, "docs", "performance.md")
    with open(path) as f:
        text = f.read()
    m = re.search(r"<!-- written by bench/run_all.py --write-docs from (\S+) -->", text)
    assert m, "docs/performance.md names no results file: run bench/run_all.py --write-docs"
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "performance.md")
        shutil.copy(path, copy)
        subprocess.run([sys.executable, os.path.join(REPO, "bench/run_all.py"), "--from-json",
                        os.path.join(REPO, m.group(1)), "--write-docs", "--docs", copy],
                       check=True, capture_output=True, timeout=COMMAND_TIMEOUT_S)
        with open(copy) as f:
            assert f.read() == text, "the table differs from bench/run_all.py's rendering of " + \
                m.group(1) + ": regenerate it with --from-json, never edit it by hand"


def test_option_table_names_real_options():
    """Each option named in the first column of docs/operations.md's option table is one that
    `warden --help` lists (patterns such as `cluster-*` and placeholders are left out)."""
    with open(os.path.join(REPO, "docs", "operations.md")) as f:
        text = f.read()
    table = text[text.index("| option | default | meaning |"):]
    table = table[:table.index("\n\n")]
    known = help_text([WARDEN])
    names = [name for row in table.split("\n")[2:]
             for name in re.findall(r"`([a-z][a-z0-9-]*)(?: <[^`]*)?`", row.split(" | ")[0])]
    assert len(names) > 50
    missing = [n for n in names if not re.search(r"(--|alias |, )" + re.escape(n) + r"\b", known)]
    assert not missing, f"warden --help has no such options: {missing}"


def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    with open(path) as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)}


@pytest.mark.parametrize("path", DOCS)
def test_links_resolve(path):
    with open(os.path.join(REPO, path)) as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"^[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(REPO, os.path.dirname(path), file)) if file \
            else os.path.join(REPO, path)
        assert os.path.exists(full), f"{path}: {target} does not exist"
        if anchor and full.endswith(".md"):
            assert anchor in anchors(full), f"{path}: {target}: no such heading"
