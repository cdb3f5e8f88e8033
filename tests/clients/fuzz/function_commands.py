"""The makers of function commands (Redis 7.0's FUNCTION and FCALL), mixed into
commands.Generator like the others.

A library is built from the scripts' own pools (commands.SCRIPT_STATEMENTS and SCRIPT_RETURNS):
each of its functions binds `local KEYS, ARGV = keys, args` and runs a script body, so the
functions do what the random scripts do, through FCALL's arguments instead of eval's globals.
Now and then a library is broken on purpose (a bad header, a bad name, no functions, a compile
error, a flag Redis does not know), or registers a function another library has.

`functions` (name -> comparison kind) is a hint of what is loaded, not the truth: a failed
FUNCTION LOAD on both servers only costs FCALLs that answer "Function not found" on both.
FUNCTION LIST answers in Redis's dict order, so it is compared sorted."""

from fuzz.command import Command

LIBRARY_NAMES = ["lib0", "lib1", "lib2", "Lib0"]
# No two names that differ only in case: one library registering both crashes Redis 7.0
# (README, "Known differences"). FCALL varies the case instead.
FUNCTION_NAMES = ["f0", "f1", "f2", "f3"]
FLAG_SETS = [[], [], ["no-writes"], ["allow-oom"], ["no-writes", "allow-oom"], ["allow-stale"],
             ["bogus"]]
BROKEN_HEADERS = ["", "#!lua\n", "#!lua name=\n", "#!lua name=a-b\n", "#!js name=x\n",
                  "#!lua name=x name=y\n", "#!lua name=x extra=1\n"]


class FunctionMakers:
    def function_body(self, statements, returns):
        body = [self.rng.choice(statements) for _ in range(self.rng.randint(0, 2))]
        ret, kind = self.rng.choice(returns)
        return "local KEYS, ARGV = keys, args " + " ".join(body + [ret]), kind

    def library(self, statements, returns):
        """A FUNCTION LOAD payload and the functions it registers (name -> kind)."""
        name = self.rng.choice(LIBRARY_NAMES)
        registered = {}
        lines = []
        for _ in range(self.rng.randint(1, 3)):
            fname = self.rng.choice(FUNCTION_NAMES)
            body, kind = self.function_body(statements, returns)
            flags = self.rng.choice(FLAG_SETS)
            if flags or self.rng.random() < 0.3:
                flag_list = ", ".join("'%s'" % f for f in flags)
                lines.append("redis.register_function{function_name='%s', callback=function("
                             "keys, args) %s end, flags={%s}}" % (fname, body, flag_list))
            else:
                lines.append("redis.register_function('%s', function(keys, args) %s end)"
                             % (fname, body))
            registered[fname] = "exact" if kind != "ttl" else kind
        header = "#!lua name=%s\n" % name
        r = self.rng.random()
        if r < 0.04:
            header = self.rng.choice(BROKEN_HEADERS)
        elif r < 0.06:
            lines = ["local x = 1"]
        elif r < 0.08:
            lines.append("local broken = ")
        return header + "\n".join(lines), registered

    def function_cmd(self, statements, returns):
        r = self.rng.random()
        if r < 0.25 or not self.functions:
            code, registered = self.library(statements, returns)
            self.functions.update(registered)
            replace = ["REPLACE"] if self.rng.random() < 0.5 else []
            return Command(["FUNCTION", "LOAD"] + replace + [code], mode="load")
        if r < 0.75:
            name = self.rng.choice(sorted(self.functions))
            kind = self.functions[name]
            if self.rng.random() < 0.05:
                name, kind = "nosuchfunction", "exact"
            elif self.rng.random() < 0.1:
                name = name.upper()
            keys = [self.key() for _ in range(self.rng.choice([0, 1, 1, 1, 2]))]
            argv = [self.value(), self.px()][: self.rng.randint(0, 2)]
            numkeys = str(len(keys))
            if self.rng.random() < 0.04:
                numkeys = self.rng.choice(["-1", "9", "abc", ""])
            op = "FCALL" if self.rng.random() < 0.85 else "FCALL_RO"
            args = [op, name, numkeys] + keys + argv
            return Command(args, mode="tol", tol=250) if kind == "ttl" else Command(args)
        if r < 0.85:
            pattern = self.rng.choice(LIBRARY_NAMES + ["lib*", "*", "LIB?"])
            extra = ["WITHCODE"] if self.rng.random() < 0.5 else []
            return Command(["FUNCTION", "LIST", "LIBRARYNAME", pattern] + extra, mode="sorted")
        if r < 0.92:
            return Command(["FUNCTION", "DELETE", self.rng.choice(LIBRARY_NAMES)])
        if r < 0.96:
            return Command(["FUNCTION", "STATS"])
        self.functions.clear()
        return Command(["FUNCTION", "FLUSH"] + self.rng.choice([[], ["SYNC"], ["ASYNC"]]))
