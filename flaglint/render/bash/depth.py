"""How deep a script nests, read before it is compiled: the compiler, the word lexer and the
evaluator follow nesting by recursion, so a construct nested deeper than NESTING_LIMIT is refused
(TooDeep: FL011, naming it and its line) instead of exhausting Python's stack."""

from __future__ import annotations

from flaglint.render.bash.lexer import Source
from flaglint.render.bash.types import TooDeep

# Syntax tree levels a script may nest: real recipes nest a dozen; the recursion each level costs
# (a few frames of the compiler, the lexer or the arithmetic parser) stays well inside Python's
# stack at this depth (tests/render/test_bash_depth.py runs every construct at it).
NESTING_LIMIT = 100

# The statements a finding names (the innermost around the point the limit is passed).
_NAMES = {
    "if_statement": "if", "while_statement": "loop", "for_statement": "for loop", "c_style_for_statement": "for (( )) loop",
    "case_statement": "case", "subshell": "( ) subshell", "compound_statement": "{ } group", "function_definition": "function",
    "command_substitution": "$( ) substitution", "process_substitution": "<( ) substitution", "list": "&& / || list",
    "pipeline": "pipeline", "command": "command", "variable_assignment": "assignment", "declaration_command": "declaration",
}


def check_depth(src: Source, root) -> None:
    """TooDeep, naming the innermost construct where the tree first nests more than NESTING_LIMIT levels."""
    stack = [(root, 0, root)]
    while stack:
        node, depth, construct = stack.pop()
        if node.type in _NAMES:
            construct = node
        if depth > NESTING_LIMIT:
            what = _NAMES.get(construct.type, "script")
            line = construct.start_point[0] + 1
            raise TooDeep(src.path, line, f"the {what} at line {line} is nested more than {NESTING_LIMIT} levels deep;"
                                          f" flaglint follows scripts nested up to {NESTING_LIMIT}")
        stack.extend((child, depth + 1, construct) for child in reversed(node.children))
