"""The bash evaluator: recipe scripts evaluated statically, never run.

lexer (words, quoting, globs) → compiler (tree-sitter → a flat program) → machine (runs the program
on a state: variables, steps, frames, calls, launches), whose parts are expansion (words), conditions
(`[[ ]]`, `[ ]`, test), arithmetic and builtins; explorer (every branch outcome, by enumeration) and
symbolic (values merged where branches join) drive the machine; guards holds a path's condition
over several inputs and the values guarded by it, path_conditions turns it into Z3; types holds
the values, launches and renderings they share. The evaluator knows no program it does not run:
which commands are launches worth keeping it is told (types.LaunchRecogniser; render.recipes tells
it MaxText's).
"""
