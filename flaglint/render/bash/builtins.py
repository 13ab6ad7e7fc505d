"""The shell's own commands (source, exec, set, shift, read, ...), as a part of the machine (Interp)."""

from __future__ import annotations

import os
import re

from flaglint.render.bash.compiler import Command
from flaglint.render.bash.expansion import input_value
from flaglint.render.bash.printf import OPAQUE_OUTPUT, printf_output
from flaglint.render.bash.state import State
from flaglint.render.bash.types import Value

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPTION_NAMES = {"errexit": "e", "nounset": "u", "pipefail": "pipefail"}  # the options the evaluator follows
_INTEGER = re.compile(r"[-+]?[0-9]+")  # ASCII digits only, as bash reads them (not ², not ٣)
VENV_ACTIVATE = "bin/activate"  # a Python virtual environment's activate script, under its root


def _status_argument(args: list[str], status: int) -> int:
    """The status `exit N` / `return N` gives: N modulo 256; 2 when N is not a number."""
    if not args:
        return status
    return int(args[0]) & 255 if _INTEGER.fullmatch(args[0].strip()) else 2


def _logical_line(text: str, origins: list, raw: bool, delim: str) -> tuple[list[tuple], bool]:
    """The characters read up to the delimiter, each (char, escaped, origin), and whether the
    delimiter came before the end: without -r a backslash protects the next character from
    splitting and a backslash-newline joins the next line."""
    chars, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and not raw:
            if i + 1 < len(text) and text[i + 1] != "\n":
                chars.append((text[i + 1], True, origins[i + 1]))
            i += 2
            continue
        if c == delim:
            return chars, True
        chars.append((c, False, origins[i]))
        i += 1
    return chars, False


def _lines(text: str, origins: list, delim: str, strip: bool) -> list[tuple]:
    """mapfile's elements: each line, with its delimiter unless -t."""
    out, start = [], 0
    for i, c in enumerate(text):
        if c == delim:
            end = i if strip else i + 1
            out.append((text[start:end], origins[start:end]))
            start = i + 1
    if start < len(text):
        out.append((text[start:], origins[start:]))
    return out


def read_split(chars: list[tuple], ifs: str, count: int | None) -> list[tuple]:
    """The fields read gives `count` names (None: read -a, every field), as bash splits the line:
    IFS whitespace around a field is dropped, each other IFS character ends one field, and the
    last name takes the rest of the line, less trailing IFS whitespace, escaped or not (or its one
    field as it is, when nothing but that field's delimiter follows it)."""
    blank = {c for c in ifs if c in " \t\n"}
    n = len(chars)

    def ws(i: int) -> bool:
        return not chars[i][1] and chars[i][0] in blank

    def delimiter(i: int) -> bool:
        return not chars[i][1] and chars[i][0] in ifs

    def skip(i: int) -> int:
        while i < n and ws(i):
            i += 1
        return i

    def field(i: int) -> tuple[tuple, int]:
        start = i
        while i < n and not delimiter(i):
            i += 1
        found = _joined(chars[start:i])
        i = skip(i)
        if i < n and delimiter(i):
            i = skip(i + 1)
        return found, i

    i = skip(0)
    out = []
    if count is None:
        while i < n:
            found, i = field(i)
            out.append(found)
        return out
    for _ in range(count - 1):
        found, i = field(i) if i < n else (("", []), i)
        out.append(found)
    if i >= n:
        out.append(("", []))
        return out
    found, after = field(i)
    if after < n:
        # bash strips the rest's trailing IFS whitespace escaped or not: its read marks an escaped
        # character with a byte that this strip drops together with the blank it protects.
        end = n
        while end > i and chars[end - 1][0] in blank:
            end -= 1
        found = _joined(chars[i:end])
    out.append(found)
    return out


def _slice(value: Value, start: int, end: int) -> Value:
    return Value(value.text[start:end], value.origins[start:end], value.opaque)


def _joined(chars: list[tuple]) -> tuple:
    return "".join(c for c, _, _ in chars), [o for _, _, o in chars]


class Builtins:
    """The builtins, for the machine (Interp) that holds the state."""

    # ---- builtins ----
    def b_echo(self, ins: Command, st: State) -> None:
        """echo inside a captured function: its words, blank-separated, then a newline unless -n."""
        fields = self.fields(ins.words[1:], st)
        self.watch(st, *fields)  # what a captured function prints keeps no origins of its own
        newline = True
        while fields and fields[0].text in ("-n", "-e", "-E", "-ne", "-en"):
            newline = newline and "n" not in fields[0].text
            fields = fields[1:]
        for i, f in enumerate(fields):
            if i:
                st.output.append((" ", (None,)))
            st.output.append((f.text, f.origins))  # its spans: never one Origin a character
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
        self.source(ins, st, args[0], tuple(fields[2:]) if len(fields) > 2 else None)

    def source(self, ins, st, name: str, arguments: tuple | None) -> None:
        """Run the file `name` in this shell; `arguments`: its positional parameters while it runs
        (None: the caller's, which it may shift)."""
        if name == os.devnull:  # sources nothing
            st.status = 0
            st.pc += 1
            return
        if (name == VENV_ACTIVATE or name.endswith("/" + VENV_ACTIVATE)) and self.resolve(st, name) is None:
            # virtualenv, venv and uv write the same activate script: it sets PATH, VIRTUAL_ENV and
            # the prompt, and defines `deactivate`; nothing a trainer reads as its flags.
            self.note(st, ins.line, f"the sourced file {name!r} (a Python virtual environment's activate script) is not"
                      " found: taken to set only PATH, VIRTUAL_ENV and the prompt, as every such script does")
            st.status = 0
            st.pc += 1
            return
        resolved = self.script_file(st, ins.line, "sourced file", name)
        if resolved is None:
            st.status = 0  # what the file does is not known (FL011): the script is followed past it
            st.pc += 1
            return
        compiled = self.load(resolved)
        prefix = self.prefix(ins, st)
        self.push(st, compiled.code, "source", (st.positional if arguments is not None else None, bool(prefix)))
        if prefix:
            st.scopes.append(prefix)
        if arguments is not None:
            st.positional = arguments

    def b_exec(self, ins, st, fields, args) -> None:
        """`exec COMMAND`: the shell becomes the command (after exec's own -a NAME, -c, -l), so the
        script (or subshell) ends with it; without a command (only redirections) it goes on."""
        at = 1
        while at < len(fields) and fields[at].text.startswith("-") and fields[at].text != "-":
            option = fields[at].text
            at += 1
            if option == "--":
                break
            if option.endswith("a"):  # -a NAME: the name the command gets as its argv[0]
                at += 1
        if at >= len(fields):
            st.status = 0
            st.pc += 1
            return
        self.run_program(ins, st, fields[at:], replace=True)

    def b_shift(self, ins, st, fields, args) -> None:
        if args and not _INTEGER.fullmatch(args[0]):
            st.status = 1  # numeric argument required: nothing is shifted
            st.pc += 1
            return
        n = int(args[0]) if args else 1
        arguments = self.positional(st, max(n, 0))
        st.status = 0 if 0 <= n <= len(arguments) else 1
        n = max(n, 0)
        st.positional = arguments[n:] if n <= len(arguments) else arguments
        st.pc += 1

    def b_set(self, ins, st, fields, args) -> None:
        options = set(st.options)
        words = args[: args.index("--")] if "--" in args else args
        i = 0
        while i < len(words):
            word = words[i]
            if len(word) > 1 and word[0] in "-+" and word[1:].isalpha():
                change = options.add if word[0] == "-" else options.discard
                for letter in word[1:]:
                    if letter == "o" and i + 1 < len(words):  # -o NAME, also at the end of -euo NAME
                        i += 1
                        name = _OPTION_NAMES.get(words[i])
                        if name:
                            change(name)
                    elif letter in "eu":
                        change(letter)
            i += 1
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
            result = self.arith_text(a, st, ins.line)
        st.status = 0 if result else 1
        st.pc += 1

    def b_read(self, ins, st, fields, args) -> None:
        names, skip, raw, delim, known = [], None, False, "\n", True
        reading = fields[0].text == "read"
        with_arg = set("adinNptu") if reading else set("dnOsuCc")
        for a in args:
            if skip is not None:
                if skip == "a" and reading:
                    names[-1] = ("array", a)
                elif skip == "d":
                    delim = a[:1] or "\0"
                elif skip in "nNu" or not reading:
                    known = False  # a count of characters, another descriptor: not followed
                skip = None
            elif a.startswith("-") and len(a) > 1:
                raw = raw or "r" in a
                if a[-1] in with_arg:
                    skip = a[-1]
                if a[-1] == "a" and reading:
                    names.append(None)
            else:
                names.append(a)
        if not reading and not [n for n in names if n]:
            names = ["MAPFILE"]
        if reading and not names:
            names = ["REPLY"]
        if ins.stdin is not None and known:
            self._read_herestring(ins, st, names if reading else [("array", names[-1])], raw or not reading,
                                  delim, reading or any(a.startswith("-") and "t" in a for a in args))
            return
        if reading:
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

    def _read_herestring(self, ins, st, names: list, raw: bool, delim: str, strip: bool) -> None:
        """read (or mapfile) from `<<< word` (the word and a newline) or a here-document (its text),
        split as bash splits it."""
        value = self.value(ins.stdin, st)  # first: it may fork (NeedInput) before anything is assigned
        ifs = self.prefix(ins, st).get("IFS") or self.scalar(st, "IFS")
        ifs = " \t\n" if ifs is None else ifs.text
        text, origins = (value.text, list(value.origins)) if ins.heredoc else (value.text + "\n", list(value.origins) + [None])
        if isinstance(names[0], tuple) and names[0][0] == "array" and len(names) == 1 and ins.words[0].literal != "read":
            lines = _lines(text, origins, delim, strip)  # mapfile: one element per line
            self.assign(st, names[0][1], [Value(t, o, value.opaque) for t, o in lines])
            st.status = 0
            st.pc += 1
            return
        chars, ended = _logical_line(text, origins, raw, delim)
        for n in names:
            if n is None:
                continue
            if isinstance(n, tuple):
                self.assign(st, n[1], [Value(t, o, value.opaque) for t, o in read_split(chars, ifs, None)])
            break
        plain = [n for n in names if isinstance(n, str)]
        if plain:
            for name, (t, o) in zip(plain, read_split(chars, ifs, len(plain))):
                self.assign(st, name, Value(t, o, value.opaque))
        st.status = 0 if ended else 1  # the end of the input before the delimiter
        st.pc += 1

    def b_printf(self, ins, st, fields, args) -> None:
        """`printf -v NAME`: NAME not known here; printf inside a captured function: what it writes,
        where the format is followed (printf_output), else output not known here (OPAQUE_OUTPUT)."""
        st.status = 0
        if len(args) >= 2 and args[0] == "-v":
            self.assign(st, args[1], Value("", [], True))
            self.note(st, ins.line, f"opaque: printf -v sets {args[1]}")
        elif st.output is not None and not ins.silent:
            ended = args[:1] == ["--"]  # the end of printf's options
            given = fields[2:] if ended else fields[1:]
            if not given or not ended and len(args[0]) > 1 and args[0].startswith("-"):
                st.status = 2  # bash: a usage error (an invalid option, `printf -x`), nothing written
            else:
                written = printf_output(given[0].text, [(f.text, f.origins) for f in given[1:]])
                st.output.extend(written if written is not None else [OPAQUE_OUTPUT])
        st.pc += 1

    def b_eval(self, ins, st, fields, args) -> None:
        self.note(st, ins.line, "eval is not evaluated: only the MaxText command lines in its words are checked")
        self.record_launch(ins, st, fields, self.prefix(ins, st), False)
        st.status = 0
        st.pc += 1

    def b_command(self, ins, st, fields, args) -> None:
        """`command [-p] NAME ARGS`: NAME run as a builtin or a program, never as a function of the
        script; `command -v NAME` (or -V) only says what NAME is."""
        at = 1
        while at < len(fields) and fields[at].text.startswith("-") and fields[at].text != "-":
            at += 1
            if fields[at - 1].text == "--":
                break
            if set(fields[at - 1].text[1:]) & {"v", "V"}:
                at = len(fields)
        if at >= len(fields):
            st.status = 0
            st.pc += 1
            return
        self.run_fields(ins, st, fields[at:], functions=False)

    def b_coproc(self, ins, st, fields, args) -> None:
        """`coproc COMMAND`, `coproc NAME { COMMANDS; }`: the command runs beside the script (its
        launch is a launch); the braces' name and the braces themselves are no part of it."""
        at = 1
        if at + 1 < len(fields) and fields[at + 1].text in ("{", "("):
            at += 1
        if at < len(fields) and fields[at].text in ("{", "("):
            at += 1
        if at >= len(fields):
            st.status = 0
            st.pc += 1
            return
        self.run_fields(ins, st, fields[at:])

    def b_trap(self, ins, st, fields, args) -> None:
        """`trap ACTION EXIT`: the action runs when the script ends. The MaxText command lines in
        it are checked as an eval string's are; a function of the script that it names and that
        may launch is not followed (FL011)."""
        at = 1 if not args or args[0] != "--" else 2
        signals = args[at:]
        if len(fields) > at + 1 and fields[at].text not in ("", "-") and set(signals) & {"EXIT", "0", "SIGEXIT"}:
            action = fields[at]
            first = action.text.split()[0] if action.text.split() else ""
            if first in st.functions and self._may_launch(st.functions[first]):
                self.unfollowed(st, ins.line, f"the EXIT trap at line {ins.line} runs the function {first} when the script"
                                " ends, which is not followed there")
            self.record_launch(ins, st, [input_value("eval"), action], self.prefix(ins, st), False)
        st.status = 0
        st.pc += 1

    def _may_launch(self, code) -> bool:
        """Whether a function's code runs a program that may launch, a shell or a script."""
        commands = [i.words for i in code.instrs if type(i) is Command and i.words[0].literal]
        return any(self.launches.may_launch(os.path.basename(w[0].literal), [a.literal for a in w[1:]])
                   or os.path.basename(w[0].literal) in ("bash", "sh") or w[0].literal.endswith(".sh") for w in commands)

    def b_shopt(self, ins, st, fields, args) -> None:
        """`shopt -s expand_aliases`: aliases the script defines are expanded from here on, which
        is not followed (FL011); other options change nothing flaglint reads."""
        if "-s" in args and "expand_aliases" in args:
            self.stop(st, ins.line, f"aliases are expanded from line {ins.line} (shopt -s expand_aliases), and the commands they stand for are not followed")
            return
        st.status = 0
        st.pc += 1

    def b_getopts(self, ins, st, fields, args) -> None:
        """`getopts OPTSTRING NAME [ARG...]`: the next option of the arguments (the positional
        parameters unless ARGs are given), as bash reads them. OPTIND is the index of the next
        argument; the letters of a group (`-vn 5`) are read one at a time; an option's value is the
        rest of its word or the next argument; `--`, a word that is no option, or the end ends the
        options (status 1). An unknown letter or a missing value sets NAME to `?` (`:` for a
        missing value when OPTSTRING starts with `:`, which also puts the letter in OPTARG)."""
        if len(args) < 2:
            st.status = 2
            st.pc += 1
            return
        optstring, name = args[0], args[1]
        words = fields[3:] if len(args) > 2 else self.positional_values(st)
        silent = optstring.startswith(":")
        index_value = self.scalar(st, "OPTIND")
        index = int(index_value.text) if index_value is not None and _INTEGER.fullmatch(index_value.text) else 1
        index = min(max(index, 1), len(words) + 1)  # as bash reads an OPTIND out of range
        at, letter_at = st.iters.get(("getopts", len(st.stack)), (index, 1))
        letter_at = letter_at if at == index else 1  # OPTIND set again: the next word from its start
        word = words[index - 1] if 0 < index <= len(words) else None
        text = "" if word is None else word.text
        if word is None or letter_at == 1 and (text == "--" or not text.startswith("-") or text == "-"):
            self._options_read(st, name, index + (text == "--"), 1, 1, "?", None)
            return
        letter, optarg = text[letter_at], None
        after = letter_at + 1
        position = optstring.find(letter, 1 if silent else 0) if letter != ":" else -1
        takes_value = position >= 0 and optstring[position + 1:position + 2] == ":"
        if position < 0:
            optarg = _slice(word, letter_at, after) if silent else None
            letter = "?"
        elif takes_value and after < len(text):
            optarg, after = _slice(word, after, len(text)), len(text)
        elif takes_value and index < len(words):
            optarg, index, after = words[index], index + 1, len(text)
        elif takes_value:
            optarg = _slice(word, letter_at, after) if silent else None
            letter = ":" if silent else "?"
        if after >= len(text):
            index, after = index + 1, 1
        self._options_read(st, name, index, after, 0, letter, optarg)

    def _options_read(self, st, name: str, index: int, letter_at: int, status: int, letter: str, optarg) -> None:
        self.assign(st, name, Value(letter, [None]))
        self.assign(st, "OPTARG", optarg)
        self.assign(st, "OPTIND", Value(str(index), [None] * len(str(index))))
        st.iters[("getopts", len(st.stack))] = (index, letter_at)
        st.status = status
        st.pc += 1


BUILTINS = {
    ":": Builtins.b_true, "true": Builtins.b_true, "false": Builtins.b_false, "exit": Builtins.b_exit,
    "return": Builtins.b_return, "source": Builtins.b_source, ".": Builtins.b_source, "exec": Builtins.b_exec,
    "shift": Builtins.b_shift, "set": Builtins.b_set,
    "test": Builtins.b_test, "[": Builtins.b_test, "let": Builtins.b_let, "read": Builtins.b_read,
    "mapfile": Builtins.b_read, "readarray": Builtins.b_read, "printf": Builtins.b_printf, "eval": Builtins.b_eval,
    "getopts": Builtins.b_getopts, "builtin": Builtins.b_builtin, "command": Builtins.b_command,
    "coproc": Builtins.b_coproc, "trap": Builtins.b_trap, "shopt": Builtins.b_shopt,
}


def shell_operand(args: list[str]) -> tuple[int | None, bool]:
    """Where bash's options end in its arguments (the script, or with -c the command string), and
    whether -c is among them (also grouped: `-lc`, `-ec`); each o or O of an option takes the
    next word as its name (`-o pipefail`, `-euxo pipefail`)."""
    command_string, at = False, 0
    while at < len(args) and args[at][:1] in ("-", "+") and args[at] not in ("-", "--"):
        option = args[at]
        if not option.startswith("--"):
            command_string = command_string or "c" in option[1:]
            at += option[1:].count("o") + option[1:].count("O")
        at += 1
    if at < len(args) and args[at] == "--":
        at += 1
    return (at if at < len(args) else None), command_string
