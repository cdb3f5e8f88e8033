#!/usr/bin/env python3
"""Reads the JUnit XML files that tests/clients/run.sh collects and prints, per client and per
server, how many scenarios passed, then one closing line "clients: N passed, M failed".

    summarize.py RESULTS_DIR [suite-that-exited-non-zero ...]

Every test name carries its server in brackets: "[warden]", "[redis-server]", or for the
differential tester "[warden vs redis-server]". Exits 1 when anything failed, when a suite
exited non-zero, or when no test ran at all.
"""

import os
import re
import sys
import xml.etree.ElementTree as ET

TARGET = re.compile(r"\[(warden vs redis-server|redis-server vs redis-server|warden|redis-server)"
                    r"\b[^\]]*\]")
# pytest names the module in classname; the table wants the client's name.
MODULE_ROWS = {
    "test_redis_cli": "redis-cli 7.0.15",
    "test_redis_py_lock": "redis-py 4.3.4 (python3-redis)",
    "test_blocking": "blocking commands (raw RESP)",
    "test_blocking_endings": "blocking commands: how waits end (raw RESP)",
    "test_redis_py_recipes": "redis-py 4.3.4 recipes (WATCH, hash, zset, listen)",
    "test_twemproxy": "twemproxy 0.5.0 (nutcracker)",
    "test_portalocker": "portalocker 2.2.1 (python3-portalocker)",
    "test_python_redis_lock": "python-redis-lock 4.0.1 protocol (replayed)",
    "test_redisson_locks": "Redisson 3.52.0 locks (replayed)",
    "test_redisson_sync": "Redisson 3.52.0 semaphores and latch (replayed)",
}
COLUMNS = ["redis-server", "warden", "warden vs redis-server", "redis-server vs redis-server"]


def walk(node, ancestors):
    for child in node:
        if child.tag == "testsuite":
            yield from walk(child, ancestors + [child.get("name", "")])
        elif child.tag == "testcase":
            yield child, ancestors


def row_of(case, ancestors):
    for name in reversed(ancestors):
        if TARGET.search(name):
            return TARGET.sub("", name).strip()
    classname = case.get("classname", "")
    if TARGET.search(classname):
        return TARGET.sub("", classname).strip()
    # pytest: "test_module" or "test_module.TestClass"
    for part in classname.split("."):
        if part in MODULE_ROWS:
            return MODULE_ROWS[part]
    return classname


def main():
    results_dir, failed_suites = sys.argv[1], sys.argv[2:]
    table = {}  # row -> column -> [passed, failed]
    failures = []
    suites_with_failures = set()
    for file_name in sorted(os.listdir(results_dir)):
        if not file_name.endswith(".xml"):
            continue
        try:
            root = ET.parse(os.path.join(results_dir, file_name)).getroot()
        except ET.ParseError as e:
            print("%s: unreadable (%s)" % (file_name, e))
            continue
        for case, ancestors in walk(root, []):
            path = ancestors + [case.get("classname", ""), case.get("name", "")]
            found = next((m.group(1) for m in map(TARGET.search, path) if m), None)
            if found is None:
                found = "?"
            row = row_of(case, ancestors)
            bad = case.find("failure") is not None or case.find("error") is not None
            skipped = case.find("skipped") is not None
            if skipped and not bad:
                continue
            cell = table.setdefault(row, {}).setdefault(found, [0, 0])
            cell[1 if bad else 0] += 1
            if bad:
                suites_with_failures.add(file_name[:-len(".xml")])
                names = [p for p in ancestors + [case.get("name", "")] if p]
                failures.append("%s :: %s" % (row, " > ".join(names)))

    columns = [c for c in COLUMNS if any(c in cells for cells in table.values())]
    columns += sorted({c for cells in table.values() for c in cells} - set(columns))
    width = max([len(r) for r in table] + [len("client")])
    print("%-*s  %s" % (width, "client", "  ".join("%-22s" % c for c in columns)))
    for row in sorted(table):
        cells = []
        for column in columns:
            p, f = table[row].get(column, [0, 0])
            cells.append("%-22s" % ("-" if p + f == 0 else
                                    "%d/%d passed" % (p, p + f) + (" FAIL" if f else "")))
        print("%-*s  %s" % (width, row, "  ".join(cells)))
    if failures:
        print("\nfailed:")
        for line in failures:
            print("  " + line)
    if failed_suites:
        print("\nsuites that exited non-zero: " + ", ".join(failed_suites))

    passed = sum(c[0] for cells in table.values() for c in cells.values())
    failed = sum(c[1] for cells in table.values() for c in cells.values())
    # A suite that crashed or timed out without reporting a failing test still counts as one.
    failed_total = failed + len([s for s in failed_suites if s not in suites_with_failures])
    print("\nclients: %d passed, %d failed" % (passed, failed_total))
    return 0 if failed_total == 0 and not failed_suites and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
