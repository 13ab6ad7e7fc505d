"""How a raise statement in MaxText's source reads, taken from the text without evaluating it.

The walker and the models of MaxText's helpers both cite raise sites: the raises a body holds, the
exception's name, the message node, and the message or an expression as the source writes it,
with the `self.`/`config.` prefixes, `.value` and pyconfig's `raw_keys[...]` (before 0.2.0)
dropped so that it names config keys the way a user writes them.
"""

from __future__ import annotations

import ast
import re

_RAW_KEY = re.compile(r"""raw_keys\[(['"])([A-Za-z_][A-Za-z0-9_]*)\1\]""")


def raises_in(stmts: list[ast.stmt]) -> list[ast.Raise]:
    """Every raise of an exception in STMTS, nested blocks and functions included."""
    out = []
    for stmt in stmts:
        out.extend(n for n in ast.walk(stmt) if isinstance(n, ast.Raise) and n.exc is not None)
    return out


def exception_name(stmt: ast.Raise) -> str:
    exc = stmt.exc
    func = exc.func if isinstance(exc, ast.Call) else exc
    return ast.unparse(func) if func is not None else ""


def raise_message(stmt: ast.Raise) -> ast.expr | None:
    exc = stmt.exc
    if isinstance(exc, ast.Call) and exc.args:
        return exc.args[0]
    return None


def source_message(node: ast.expr | None) -> str:
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(str(p.value) if isinstance(p, ast.Constant) else "{" + clean_source(p.value) + "}" for p in node.values)
    return "" if node is None else "{" + clean_source(node) + "}"


def clean_source(node: ast.expr) -> str:
    text = _RAW_KEY.sub(r"\2", ast.unparse(node))
    for prefix in ("self.", "config."):
        text = text.replace(prefix, "")
    return text.replace(".value", "")
