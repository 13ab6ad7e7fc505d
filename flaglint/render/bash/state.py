"""The state of one path through a script: variables, frames, what it has read, noted and launched."""

from __future__ import annotations


class State:
    __slots__ = ("scopes", "exported", "functions", "positional", "code", "pc", "stack", "status",
                 "inputs", "domains", "condition", "notes", "branches", "handoffs", "iters", "steps", "done", "exit_code",
                 "unfound", "unbounded", "output", "launched", "options", "errexit_ignored", "files")

    def copy(self) -> "State":
        s = State.__new__(State)
        s.scopes = [d.copy() for d in self.scopes]
        s.exported = self.exported.copy()
        s.functions = self.functions  # replaced, never changed in place
        s.positional = self.positional
        s.code = self.code
        s.pc = self.pc
        s.stack = self.stack.copy()
        s.status = self.status
        s.inputs = self.inputs.copy()
        s.domains = self.domains.copy()
        s.condition = self.condition  # replaced, never changed in place
        s.notes = self.notes
        s.branches = self.branches
        s.handoffs = self.handoffs
        s.iters = self.iters.copy()
        s.steps = self.steps
        s.done = self.done
        s.exit_code = self.exit_code
        s.unfound = self.unfound
        s.unbounded = self.unbounded
        s.output = self.output
        s.launched = self.launched
        s.options = self.options
        s.errexit_ignored = self.errexit_ignored
        s.files = self.files  # replaced, never changed in place
        return s
