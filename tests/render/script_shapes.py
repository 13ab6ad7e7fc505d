"""Script shapes that real launchers write, generated at a size: the tests bound what the evaluator
does on them, and bench/paths_bench.py prints how its cost grows."""

from __future__ import annotations


def options_launcher(options: int, reads_last: bool) -> str:
    """A GPU launcher's shape: an options loop in a function handed "$@", the options put in an
    array, the array handed to a function whose locals make a `bash -c` string. `reads_last`: the
    script also reads its last possible argument, so the loop may go round once for each option."""
    arms = "".join(f'      -o{i}|--opt{i}) opt{i}="$2"; shift 2 ;;\n' for i in range(options))
    locals_ = "".join(f"  local v{i}=${i + 1}\n" for i in range(options))
    return ('parse_args() {\n  while [[ "$#" -gt 0 ]]; do\n    case "$1" in\n' + arms
            + '      -h|--help) echo usage; exit ;;\n      *) echo "bad $1"; exit 1 ;;\n    esac\n  done\n}\n'
            + "run() {\n" + locals_ + '  mpirun -np 2 bash -c "run ' + " ".join(f"-x ${{v{i}}}" for i in range(options)) + '"\n}\n'
            + "".join(f"opt{i}=d{i}\n" for i in range(options))
            + (f'last="${{{2 * options}}}"\n' if reads_last else "")
            + 'parse_args "$@"\nargs=(' + " ".join(f'"${{opt{i}}}"' for i in range(options)) + ')\nrun "${args[@]}"\n')
