"""Counted loops, `for ((i = 0; i < N; i++))`, with their passes summarised: a part of the machine (Interp).

A loop over a replica count (`ROLLOUT_REPLICAS`, 16 unless set) runs the same body on each pass,
the counter only written into strings (`--worker_id=${ID}-${i}`). Run pass by pass, its cost and the
launches it keeps grow with the count. So, from the second pass, where the header says at least
SUMMARISED_FROM passes are left (its arithmetic worked out on the counter alone), the counter is a
value not known here (types.counter_value) and the passes run until one leaves the path's variables
as it found them (what a pass launches no later pass reads): a launch the passes repeat is kept once,
its counter not known. The last pass then runs with the counter it has in bash, so what the passes
assign ends as bash leaves it, and the counter ends at bash's value.

Where that would not be bash's, the path goes back to where the summary began (the state it had
there, narrowed to the inputs' values it has since taken) and runs the passes one by one:
a test, a `case`, arithmetic, a builtin or a parameter operator that reads the counter's value;
a pass that leaves the loop other than by its test (`exit`, `return`); passes that do not come back
to one state within SUMMARY_ROUNDS; and a last pass that still leaves the counter's characters in a
variable, a captured output or a written file.
"""

from __future__ import annotations

from flaglint.render.bash.arithmetic import ArithContext, ArithError, eval_arith
from flaglint.render.bash.compiler import ArithCmd, JumpIf
from flaglint.render.bash.state import State
from flaglint.render.bash.types import Value, alike, counter_value, holds_counter

# Passes left at the second test from which a loop is summarised: fewer cost less run one by one.
SUMMARISED_FROM = 4
# Summarised passes that may differ before the path runs the loop pass by pass.
SUMMARY_ROUNDS = 3
# Passes a header is worked out for: a loop with more would not end within the machine's step limit.
PASSES_WORKED_OUT = 50_000
# What a path keeps of its state when it goes back to where a summary began: the inputs' values it took.
_NARROWED = frozenset({"inputs", "domains", "condition", "steps"})
# Builtins that read their words' values only to print them, or not at all: the counter passes
# through them (what a captured function prints is watched where it is written: Builtins.b_echo).
# `export "$name=…"` and its kin are not among them: a word may name the variable.
KEEPING = frozenset({"echo", ":", "true", "false"})


# Where a path that runs summarised passes captures a function's output: its own run of that
# function watches what it reads, and goes back (unsummarised) only as the path that captures it.
CAPTURED = "captured"


class CounterRead(Exception):
    """A summarised counter's value is read where bash's own value matters."""


class _Header(ArithContext):
    """The loop header's arithmetic with the counter held apart: every other variable as the path
    holds it, read once (the header assigns none of them)."""

    def __init__(self, interp, st: State, counter: str, value: int):
        self.interp, self.st, self.counter, self.value = interp, st, counter, value
        self.held: dict[str, str | None] = {}

    def get(self, name: str) -> str | None:
        if name == self.counter:
            return str(self.value)
        if name not in self.held:
            found = self.interp.scalar(self.st, name)
            if found is not None and holds_counter(found):
                raise ArithError("reads the counter")
            self.held[name] = None if found is None else found.text
        return self.held[name]

    def set(self, name: str, value: int) -> None:
        if name != self.counter:
            raise ArithError("assigns another variable")
        self.value = value

    def expand(self, part) -> str:
        raise ArithError("an expansion")  # (never: the compiler counts no loop whose header expands)


class CountedLoops:
    """The summaries of counted loops (compiler: JumpIf.counter), for the machine (Interp)."""

    def counted_jump(self, ins: JumpIf, st: State) -> None:
        """The test of a counted loop: on, or out, pass by pass until the summary begins; then
        the summarised passes until they repeat, and the last pass."""
        key = ("count", id(ins), len(st.stack))
        phase = st.iters.get(key)
        kind = phase[0] if phase is not None else None
        going_on = st.status == 0
        if kind == "summary":
            _, snapshot, before, rounds, last = phase
            kept = len(snapshot.launched)
            st.launched = st.launched[:kept] + _distinct(st.launched[kept:], st.launched[:kept])
            now = self.loop_state(st, launches=False)
            if alike(now, before):  # the passes repeat: the last one runs with bash's counter
                st.iters[key] = ("last", snapshot, st.launched)
                self.assign(st, ins.counter, Value(str(last), [None] * len(str(last))))
            elif rounds + 1 >= SUMMARY_ROUNDS:
                self.unsummarised(st)
                return
            else:
                st.iters[key] = ("summary", snapshot, now, rounds + 1, last)
            st.pc += 1
            return
        if kind == "last":
            if going_on or self._counter_kept(st):
                self.unsummarised(st)
                return
            st.launched = phase[2]  # the last pass's launches are those the summary keeps, its counter known
            st.widened = None
            del st.iters[key]
            st.pc = ins.target
            return
        if not going_on:
            st.iters.pop(key, None)
            st.pc = ins.target
            return
        if kind is None:
            st.iters[key] = ("once",)
        elif kind == "once":
            last = self._last_pass(ins, st)
            if last is None or st.widened is not None:
                st.iters[key] = ("pass by pass",)
            else:
                snapshot = st.copy()
                snapshot.iters[key] = ("pass by pass",)
                self.assign(st, ins.counter, counter_value(st.code.src.path, st.code.instrs[ins.passes_from].line))
                st.widened = (len(st.stack), ins.passes_from, ins.target)
                st.iters[key] = ("summary", snapshot, self.loop_state(st, launches=False), 0, last)
        st.pc += 1

    def summarised_header(self, ins: ArithCmd, st: State) -> bool:
        """Whether the instruction is the header of a loop whose passes the path runs summarised,
        which neither steps nor tests the counter (counted_jump does)."""
        phase = st.iters.get(("count", id(ins.header), len(st.stack)))
        if phase is None or phase[0] != "summary":
            return False
        st.status = 0
        st.pc += 1
        return True

    def _last_pass(self, ins: JumpIf, st: State) -> int | None:
        """The counter on the loop's last pass, worked out from its header alone, where that many
        passes are left (SUMMARISED_FROM); None where the header cannot be worked out so. An input
        the header reads that the path has not decided forks it here (NeedInput), before any change."""
        current = self.scalar(st, ins.counter)
        if current is None or not current.text.strip().lstrip("-").isdigit() or holds_counter(current):
            return None
        header = _Header(self, st, ins.counter, int(current.text))
        passes = 1
        try:
            while passes <= PASSES_WORKED_OUT:
                last = header.value
                eval_arith(ins.update, header)
                if not eval_arith(ins.condition, header):
                    return last if passes >= SUMMARISED_FROM else None
                passes += 1
        except (ArithError, RecursionError):
            return None
        return None

    def loop_state(self, st: State, launches: bool = True) -> tuple:
        """What a loop's pass may change that a later one reads, or the path keeps (`launches`:
        with what it launched, which no later pass reads)."""
        return (tuple(tuple(sorted(scope.items(), key=lambda item: item[0])) for scope in st.scopes),
                frozenset(st.exported), st.positional, st.functions, st.options, st.output) + ((st.launched,) if launches else ())

    def _counter_kept(self, st: State) -> bool:
        """Whether the counter's characters are still in what the path holds after its last pass
        (a captured output or a written file never holds them: watch)."""
        held = [value for scope in st.scopes for value in scope.values() if value is not None]
        return any(map(holds_counter, [*held, *st.positional]))

    def watch(self, st: State, *values) -> None:
        """Read values whose own characters matter (a test's operand, arithmetic, what a captured
        function prints or a file gets): on a path that runs a loop's passes summarised, one that
        holds the counter ends the summary."""
        if st.widened is not None and any(map(holds_counter, values)):
            raise CounterRead()

    def check_summary(self, st: State) -> None:
        """Where the step took the path out of the summarised passes other than by the loop's test
        (`exit`, `return`, a function's end), it runs them again, one by one."""
        if type(st.widened) is not tuple:
            return  # a captured function's run (CAPTURED): its end is the command's
        depth, start, end = st.widened
        if st.done or len(st.stack) < depth or len(st.stack) == depth and not start <= st.pc < end:
            self.unsummarised(st)

    def unsummarised(self, st: State) -> None:
        """Back to where the summary began, with the inputs' values the path has taken since: the
        passes run one by one from there."""
        (key, phase), = ((key, phase) for key, phase in st.iters.items()
                         if key[0] == "count" and phase[0] in ("summary", "last"))
        back = phase[1].copy()
        for name in State.__slots__:
            if name not in _NARROWED:
                setattr(st, name, getattr(back, name))


def _distinct(launches: tuple, before: tuple) -> tuple:
    """The summarised passes' launches, less each one alike (types.alike) to one before it or in
    `before`: a pass that launches what an earlier one did, its counter not known either, launches
    nothing new."""
    kept: list = []
    for launch in launches:
        if not any(alike(launch, earlier) for earlier in (*before, *kept)):
            kept.append(launch)
    return tuple(kept)
