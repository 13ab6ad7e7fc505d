"""The shell's own commands (source, exec, set, shift, read, ...), as a part of the machine (Interp)."""

from __future__ import annotations

import re

from flaglint.render.bash.arithmetic import parse_arith_text
from flaglint.render.bash.compiler import Command
from flaglint.render.bash.state import State
from flaglint.render.bash.types import Value

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INTEGER = re.compile(r"[-+]?[0-9]+")  # ASCII digits only, as bash reads them (not ², not ٣)


def _status_argument(args: list[str], status: int) -> int:
    """The status `exit N` / `return N` gives: N modulo 256; 2 when N is not a number."""
    if not args:
        return status
    return int(args[0]) & 255 if _INTEGER.fullmatch(args[0].strip()) else 2


class Builtins:
    """The builtins, for the machine (Interp) that holds the state."""

    # ---- builtins ----
    def b_echo(self, ins: Command, st: State) -> None:
        """echo inside a captured function: its words, blank-separated, then a newline unless -n."""
        fields = self.fields(ins.words[1:], st)
        newline = True
        while fields and fields[0].text in ("-n", "-e", "-E", "-ne", "-en"):
            newline = newline and "n" not in fields[0].text
            fields = fields[1:]
        for i, f in enumerate(fields):
            if i:
                st.output.append((" ", (None,)))
            st.output.append((f.text, tuple(f.origins)))
        if newline:
            st.output.append(("\n", (None,)))
        st.status = 0
        st.pc += 1

    def b_builtin(self, ins, st, fields, args) -> None:
        """`builtin NAME ...`: the builtin itself, even where a function has its name."""
        if args and args[0] in ("export", "readonly", "declare", "typeset", "local"):
            for field in fields[2:]:
                name, equals, _ = field.text.partition("=")
                if not _NAME_RE.fullmatch(name):
                    continue
                if equals:
                    start = len(name) + 1
                    self.assign(st, name, Value(field.text[start:], field.origins[start:], field.opaque), args[0] == "local")
                if args[0] == "export":
                    st.exported.add(name)
            st.status = 0
            st.pc += 1
            return
        handler = BUILTINS.get(args[0]) if args else None
        if handler is None:
            st.status = 0
            st.pc += 1
            return
        handler(self, ins, st, fields[1:], args[1:])

    def b_true(self, ins, st, fields, args) -> None:
        st.status = 0
        st.pc += 1

    def b_false(self, ins, st, fields, args) -> None:
        st.status = 1
        st.pc += 1

    def b_exit(self, ins, st, fields, args) -> None:
        self.exit(st, _status_argument(args, st.status))

    def b_return(self, ins, st, fields, args) -> None:
        self.ret(st, _status_argument(args, st.status))

    def b_source(self, ins, st, fields, args) -> None:
        if not args:
            st.status = 2
            st.pc += 1
            return
        resolved = self.resolve(st, args[0])
        if resolved is None:
            self.note(st, ins.line, f"cannot find sourced file {args[0]!r}; not evaluated")
            st.unfound = st.unfound + (st.notes[-1],)
            st.status = 1
            st.pc += 1
            return
        compiled = self.load(resolved)
        prefix = self.prefix(ins, st)
        self.push(st, compiled.code, "source", (st.positional if len(fields) > 2 else None, bool(prefix)))
        if prefix:
            st.scopes.append(prefix)
        if len(fields) > 2:
            st.positional = tuple(fields[2:])

    def b_exec(self, ins, st, fields, args) -> None:
        if not args:
            st.status = 0
            st.pc += 1
            return
        target = fields[1:]
        if args[0] in ("bash", "sh") or args[0].endswith("/bash") or args[0].endswith("/sh"):
            script = next((i for i, a in enumerate(args[1:], 1) if not a.startswith("-")), None)
            if script is None or "-c" in args[1:script]:
                self.exit(st, 0)
                return
            target = fields[script + 1:]
        if target and target[0].text.endswith(".sh"):
            self.child(ins, st, target[0].text, target[1:], True)
            return
        self.exit(st, 0)  # this process becomes another program: the script ends here

    def b_bash(self, ins, st, fields, args) -> None:
        script = next((i for i, a in enumerate(args) if not a.startswith("-")), None)
        if script is None or "-c" in args[:script]:
            if "-c" in args:
                self.note(st, ins.line, "bash -c is not evaluated")
            st.status = 0
            st.pc += 1
            return
        self.child(ins, st, args[script], fields[script + 2:], False)

    def b_shift(self, ins, st, fields, args) -> None:
        if args and not _INTEGER.fullmatch(args[0]):
            st.status = 1  # numeric argument required: nothing is shifted
            st.pc += 1
            return
        n = int(args[0]) if args else 1
        st.status = 0 if 0 <= n <= len(st.positional) else 1
        n = max(n, 0)
        st.positional = st.positional[n:] if n <= len(st.positional) else st.positional
        st.pc += 1

    def b_set(self, ins, st, fields, args) -> None:
        options = set(st.options)
        words = args[: args.index("--")] if "--" in args else args
        for i, word in enumerate(words):
            if word in ("-o", "+o") and i + 1 < len(words):
                letter = {"errexit": "e", "nounset": "u"}.get(words[i + 1])
                if letter:
                    (options.add if word == "-o" else options.discard)(letter)
            elif len(word) > 1 and word[0] in "-+" and word[1:].isalpha():
                for letter in set(word[1:]) & {"e", "u"}:
                    (options.add if word[0] == "-" else options.discard)(letter)
        st.options = frozenset(options)
        if "--" in args:
            st.positional = tuple(fields[1 + args.index("--") + 1:])
        st.status = 0
        st.pc += 1

    def b_test(self, ins, st, fields, args) -> None:
        st.status = self.posix_test(args, st, ins.line)
        st.pc += 1

    def b_let(self, ins, st, fields, args) -> None:
        result = 0
        for a in args:
            result = self.arith(parse_arith_text(a), st, ins.line)
        st.status = 0 if result else 1
        st.pc += 1

    def b_read(self, ins, st, fields, args) -> None:
        names, skip = [], False
        with_arg = set("adinNptu") if fields[0].text == "read" else set("dnOsuCc")
        for a in args:
            if skip:
                skip = False
            elif a.startswith("-") and len(a) > 1:
                if a[-1] in with_arg:
                    skip = True
                if a[-1] == "a" and fields[0].text == "read":
                    names.append(None)
            elif names and names[-1] is None:
                names[-1] = ("array", a)
            else:
                names.append(a)
        if fields[0].text != "read" and not [n for n in names if n]:
            names = ["MAPFILE"]
        if fields[0].text == "read" and not names:
            names = ["REPLY"]
        if fields[0].text == "read":
            # A read loop (`while read -r line; do ...; done < file`) is summarised: one pass with
            # values the evaluator cannot know, then end of input. Nothing it reads is ever opened.
            key = ("read", id(ins), len(st.stack))
            if key in st.iters:
                del st.iters[key]
                st.status = 1
                st.pc += 1
                return
            st.iters[key] = ((), 0)
        for n in names:
            if n is None:
                continue
            name = n[1] if isinstance(n, tuple) else n
            self.assign(st, name, Value("", [], True))
            self.note(st, ins.line, f"opaque: {fields[0].text} sets {name}")
        st.status = 0
        st.pc += 1

    def b_printf(self, ins, st, fields, args) -> None:
        if len(args) >= 2 and args[0] == "-v":
            self.assign(st, args[1], Value("", [], True))
            self.note(st, ins.line, f"opaque: printf -v sets {args[1]}")
        st.status = 0
        st.pc += 1

    def b_eval(self, ins, st, fields, args) -> None:
        self.note(st, ins.line, "eval is not evaluated")
        st.status = 0
        st.pc += 1

    def b_getopts(self, ins, st, fields, args) -> None:
        st.status = 1
        st.pc += 1


BUILTINS = {
    ":": Builtins.b_true, "true": Builtins.b_true, "false": Builtins.b_false, "exit": Builtins.b_exit,
    "return": Builtins.b_return, "source": Builtins.b_source, ".": Builtins.b_source, "exec": Builtins.b_exec,
    "bash": Builtins.b_bash, "sh": Builtins.b_bash, "shift": Builtins.b_shift, "set": Builtins.b_set,
    "test": Builtins.b_test, "[": Builtins.b_test, "let": Builtins.b_let, "read": Builtins.b_read,
    "mapfile": Builtins.b_read, "readarray": Builtins.b_read, "printf": Builtins.b_printf, "eval": Builtins.b_eval,
    "getopts": Builtins.b_getopts, "builtin": Builtins.b_builtin,
}
