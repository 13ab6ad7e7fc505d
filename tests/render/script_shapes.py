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


REPEATED_KEYS = ("log_period", "eval_interval", "checkpoint_period", "steps")
REPEATED_SHAPES = ("flat", "nested", "case")
# Under each outer switch of the nested shape.
REPEATED_GROUP = 4


def repeated_appends(count: int, shape: str) -> str:
    """A recipe family's shape: `count` switches, each appending one of four keys again (overriding
    the one before) to MAXTEXT_EXTRA_FLAGS; switch 3 appends use_dpo=true and switch count-1
    packing=true, which MaxText refuses together; then a MaxText command line that splits the flags
    unquoted. `shape`: flat ifs, ifs nested under a group switch, or `case` arms on a mode input."""
    flags = "MAXTEXT_EXTRA_FLAGS"
    lines = ["#!/bin/bash", f'export {flags}="${{{flags}:-steps=10 packing=false}}"']
    for i in range(1, count + 1):
        token = ("use_dpo=true" if i == 3 else "packing=true" if i == count - 1
                 else f"{REPEATED_KEYS[i % len(REPEATED_KEYS)]}={100 + i}")
        append = f'export {flags}="${{{flags}}} {token}"'
        if shape == "flat":
            lines += [f'if [[ "${{SW_{i:03d}}}" == "on" ]]; then', f"  {append}", "fi"]
        elif shape == "nested":
            if (i - 1) % REPEATED_GROUP == 0:
                lines.append(f'if [[ "${{GROUP_{(i - 1) // REPEATED_GROUP:03d}:-off}}" == "on" ]]; then')
            lines += [f'  if [[ "${{SW_{i:03d}}}" == "on" ]]; then', f"    {append}", "  fi"]
            if i % REPEATED_GROUP == 0 or i == count:
                lines.append("fi")
        elif shape == "case":
            lines += [f'case "${{MODE_{i:03d}:-off}}" in', f"  on) {append} ;;", f"  low) {append} ;;", "  *) ;;", "esac"]
        else:
            raise ValueError(shape)
    lines.append(f"python3 -m maxtext.train src/maxtext/configs/base.yml ${flags}")
    return "\n".join(lines) + "\n"


def k8s_launcher(optional: int, guarded: int = 3) -> str:
    """A distributed-RL launcher's shape (google/tunix's experimental k8s_launcher.sh): an options
    loop, a flags function whose output is captured (`args="$(trainer_flags)"`, a printf of
    `${X:+--x=$X}` parts), a guard `-n "${A:-}" || -n "${B:-}" || …` on `guarded` inputs that sets a value, and a
    workload whose --command string holds `optional` optional parts and a MaxText command line
    with one key MaxText does not define (`stepz`)."""
    lines = ["#!/bin/bash", "set -euo pipefail", "COMMAND=start", "DRY_RUN=false",
             "while [[ $# -gt 0 ]]; do", '  case "$1" in', '    start|stop) COMMAND="$1"; shift ;;',
             '    --dry-run) DRY_RUN=true; shift ;;', '    --image) IMAGE="$2"; shift 2 ;;', "    *) shift ;;", "  esac", "done",
             'export TRAINER_BACKEND="${TRAINER_BACKEND:-maxtext}"',
             "trainer_flags() {", '  [[ "${TRAINER_BACKEND}" == "maxtext" ]] || return 0',
             "  printf '%s' \" \\"]
    lines += [f"    ${{FLAG_{i}:+--flag_{i}=${{FLAG_{i}}}}} \\" for i in range(min(optional, 12))]
    lines += ['  "', "}", 'trainer_args="$(trainer_flags)"', 'extra_json=""',
              "if [[ " + " || ".join(f'-n "${{JSON_{i}:-}}"' for i in range(guarded)) + " ]]; then",
              "  extra_json='{\"a\": 1}'", "fi",
              'cmd="python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml run_name=rl stepz=10 \\']
    lines += [f"  ${{OPT_{i}:+opt_env_{i}=${{OPT_{i}}}}} \\" for i in range(optional)]
    lines += ['  ${extra_json:+extra=\\"${extra_json}\\"} ${trainer_args}"',
              'if [[ "$COMMAND" == "stop" ]]; then echo stopping; exit 0; fi',
              'if [[ "$DRY_RUN" == "true" ]]; then echo "$cmd"; exit 0; fi',
              'xpk workload create --workload "rl-${IMAGE:-dev}" --tpu-type v5p-8 --command "$cmd"']
    return "\n".join(lines) + "\n"


def guarded_json_launcher(guarded: int) -> str:
    """A distributed-RL launcher's rollout start (google/tunix's experimental k8s_launcher.sh): an
    options loop whose arms set the first of `guarded` inputs, a function that builds a JSON only
    where one of them is set (`[[ -n "${J_0:-}" || -n "${J_1:-}" || … ]]`, the JSON a command's
    output), then reads it as a part (`${json:+--json='${json}'}`) and tests it (`-n "${json}"`)
    before a MaxText command line with one key MaxText does not define (`stepz`)."""
    guard = " || ".join(f'-n "${{J_{i}:-}}"' for i in range(guarded))
    lines = ["#!/bin/bash", "while [[ $# -gt 0 ]]; do", '  case "$1" in', '    --json) J_0="$2"; shift 2 ;;',
             '    --json=*) J_0="${1#*=}"; shift ;;', '    --prefix) PREFIX="$2"; shift 2 ;;', "    *) shift ;;", "  esac", "done",
             "start_rollout() {", '  local json=""', f"  if [[ {guard} ]]; then",
             "    json=$(python3 -c 'import json, os; print(json.dumps(dict(os.environ)))')", "  fi",
             "  local rollout_args=\"--tp=8 ${json:+--json='${json}'}\"",
             '  if [[ -n "${json}" && "${EXTRA_ARGS:-}" != *"--json"* ]]; then', '    rollout_args+=" --checked_json"', "  fi",
             '  ROLLOUT_ARGS="${rollout_args}" python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml run_name=rl stepz=10',
             "}", "start_rollout"]
    return "\n".join(lines) + "\n"


def options_loop_launcher(options: int) -> str:
    """A launcher that reads its options in a loop (google/tunix's k8s_launcher.sh, MaxText's GPU
    tests): `options` options, each `--oI VALUE` or `--oI=VALUE`, a subcommand word, switches,
    help and unknown-option arms that exit; the subcommand, a switch and an option's value decide
    the flags (`--dpo` with `--packing true` is a conflict MaxText refuses); the other options'
    values go into the launch's environment."""
    arms = ['    start|stop) COMMAND="$1"; shift ;;', "    --dpo) DPO=true; shift ;;",
            '    --packing) PACKING="$2"; shift 2 ;;', '    --packing=*) PACKING="${1#*=}"; shift ;;']
    for i in range(options):
        arms += [f'    --o{i}) O{i}="$2"; shift 2 ;;', f'    --o{i}=*) O{i}="${{1#*=}}"; shift ;;']
    arms += ['    -h|--help) echo "usage: $0 [start|stop] [--dpo] [--packing BOOL] [--oN VALUE]"; exit 0 ;;',
             '    *) echo "unknown option $1" >&2; exit 1 ;;']
    lines = ["#!/bin/bash", "COMMAND=start", "DPO=false", "PACKING=false", "while [[ $# -gt 0 ]]; do", '  case "$1" in', *arms,
             "  esac", "done", 'if [[ "$COMMAND" == "stop" ]]; then echo stopping; exit 0; fi', 'FLAGS="steps=10 packing=false"',
             'if [[ "$DPO" == "true" ]]; then FLAGS="$FLAGS use_dpo=true"; fi',
             'if [[ "$PACKING" == "true" ]]; then FLAGS="$FLAGS packing=true"; fi',
             " ".join(f"O{i}=${{O{i}:-d}}" for i in range(options))
             + " python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=opts $FLAGS"]
    return "\n".join(lines) + "\n"


def subcommand_launcher(options: int) -> str:
    """A submit script's shape (google/tunix's math_gsm8k_dist/submit_gsm8k.sh): a subcommand word
    read before an options loop, shifted away (`start`, `stop`) or kept where it is an option
    (`-*) COMMAND=start`); then `options` options, each `--oI VALUE` or `--oI=VALUE`, beside `--dpo`
    and `--packing BOOL`, which together break a MaxText validator; each option's value, else a
    default from the environment, must not be empty where `start` hands every option to
    the launching run of the script itself (`RUN_DPO="${DPO}" … bash "${BASH_SOURCE[0]}" launch`),
    which reads them from its environment."""
    names = ["DPO", "PACKING", *(f"O{i}" for i in range(options))]
    arms = ["    --dpo) DPO=true; shift ;;", '    --packing) PACKING="$2"; shift 2 ;;', '    --packing=*) PACKING="${1#*=}"; shift ;;']
    for i in range(options):
        arms += [f'    --o{i}) O{i}="$2"; shift 2 ;;', f'    --o{i}=*) O{i}="${{1#*=}}"; shift ;;']
    lines = ["#!/bin/bash", "COMMAND=start", "DPO=false", "PACKING=false",
             "if [[ $# -gt 0 ]]; then", '  case "$1" in', '    start|stop|launch) COMMAND="$1"; shift ;;',
             '    help|-h|--help) echo "usage: $0 [start|stop] [--dpo] [--packing BOOL] [--oN VALUE]"; exit 0 ;;',
             "    -*) COMMAND=start ;;", "  esac", "fi",
             "while [[ $# -gt 0 ]]; do", '  case "$1" in', *arms, '    *) echo "unknown option $1" >&2; exit 1 ;;', "  esac", "done",
             'case "$COMMAND" in', "  start)",
             *(f'    O{i}="${{O{i}:-${{DEFAULT_O{i}:-}}}}"; if [[ -z "$O{i}" ]]; then echo "--o{i} is empty" >&2; exit 1; fi'
               for i in range(options)),
             "    " + " ".join(f'RUN_{name}="${{{name}}}"' for name in names)
             + ' bash "${BASH_SOURCE[0]}" launch', "    ;;", "  stop) echo stopping ;;", "  launch)",
             '    FLAGS="steps=10 packing=false"', '    if [[ "$RUN_DPO" == "true" ]]; then FLAGS="$FLAGS use_dpo=true"; fi',
             '    if [[ "$RUN_PACKING" == "true" ]]; then FLAGS="$FLAGS packing=true"; fi',
             "    python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=sub $FLAGS", "    ;;", "esac"]
    return "\n".join(lines) + "\n"


def manifest_launcher(workloads: int) -> str:
    """A distributed-RL launcher's other shape (google/tunix's experimental k8s_launcher.sh): each
    of `workloads` start functions declares a `local` in one arm only and captures a command's
    output there, then pipes an `xpk workload create` into a function that picks a filter array
    of two lengths on an input (`filter=(sed -e A -e B)` or `(sed -e A)`) and runs it, dry or
    not; a `case` on the script's first argument starts one workload or all of them. Workload 0's
    MaxText command line sets a key MaxText does not define (`stepz`)."""
    lines = ["#!/bin/bash", 'COMMAND="${1:-start}"', 'DRY_RUN="${DRY_RUN:-false}"',
             "apply_manifest() {", "  local filter", '  if [[ -n "${QUEUE}" ]]; then',
             '    filter=(sed -e "s/low/${PRIORITY:-medium}/" -e "s|^metadata:|metadata: ${QUEUE}|")',
             "  else", '    filter=(sed -e "s/low/${PRIORITY:-medium}/")', "  fi",
             '  if [[ "$DRY_RUN" == "true" ]]; then', '    "${filter[@]}"', "  else",
             '    "${filter[@]}" | kubectl apply -f -', "  fi", "}"]
    for i in range(workloads):
        key = "stepz" if i == 0 else "steps"
        lines += [f"start_w{i}() {{", '  local extra=""', f'  if [[ "${{MODE_{i}}}" == "big" ]]; then', '    local json=""',
                  f'    if [[ -n "${{JSON_{i}:-}}" ]]; then json="$(python3 -c \'print(1)\')"; fi',
                  '    extra="${json:+log_period=${json}}"', "  fi",
                  f'  xpk workload create --workload "w{i}" --tpu-type v5p-8 --command "python3 -m maxtext.trainers.pre_train.train'
                  f' maxtext/configs/base.yml run_name=w{i} {key}=${{STEPS_{i}:-10}} ${{OPT_{i}:+eval_interval=${{OPT_{i}}}}} ${{extra}}"'
                  " | apply_manifest", "}"]
    lines += ['case "$COMMAND" in', "  start) " + "; ".join(f"start_w{i}" for i in range(workloads)) + " ;;"]
    lines += [f"  w{i}) start_w{i} ;;" for i in range(workloads)]
    lines += ["  stop) echo stopping ;;", "esac"]
    return "\n".join(lines) + "\n"


def required_variables_launcher(required: int) -> str:
    """An XPK submit script's shape (MaxText's own pre-training XPK wrappers): a helper that checks
    `required` variables by name (`[ -z "${!name:-}" ] && absent+=("$name")`), says which are
    absent (`${absent[*]}`) and stops when `${#absent[@]}` is not 0; defaults set with `: "${X:=d}"`;
    then, on the script's first argument, a workload whose --command string exports each required
    variable and runs a MaxText command line with one key MaxText does not define (`stepz`)."""
    names = [f"REQ_{i:02d}" for i in range(required)]
    exports = "".join(f"export V{i}='${{{name}}}'; " for i, name in enumerate(names))
    return "\n".join([
        "#!/bin/bash", "set -euo pipefail", 'ACTION="${1:-submit}"',
        "need() {", "  local absent=()", '  for name in "$@"; do', '    [ -z "${!name:-}" ] && absent+=("$name")', "  done",
        '  if [ "${#absent[@]}" -gt 0 ]; then', '    echo "set these first: ${absent[*]}" >&2', "    exit 1", "  fi", "}",
        ': "${STEPS:=100}"', ': "${SLICES:=1}"',
        "submit() {",
        f'  xpk workload create --workload "w1" --tpu-type v5p-8 --num-slices="$SLICES" --command "{exports}'
        'python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml run_name=w1 stepz=${STEPS}"',
        "}",
        'case "$ACTION" in',
        "  submit|again)", f"    need {' '.join(names)}", "    submit ;;",
        '  *) echo "unknown: $ACTION" >&2; exit 1 ;;', "esac"]) + "\n"


def replica_loop_launcher(replicas: int) -> str:
    """A distributed-RL launcher's rollout shape (google/tunix's experimental k8s_launcher.sh): a
    replica count that defaults to `replicas`, and a `for ((i = 0; i < REPLICAS; i++))` loop that
    names each replica by its counter and calls a function that stops it (dry or not) and one that
    builds its flags (arms that append to a local, `${X:+…}` parts) and pipes an `xpk workload
    create` whose --command string runs MaxText with one key MaxText does not define (`stepz`)."""
    return "\n".join([
        "#!/bin/bash", f"export REPLICAS=${{REPLICAS:-{replicas}}}", "export ROLLOUT_ID=${ROLLOUT_ID:-roll}",
        "DRY_RUN=${DRY_RUN:-false}",
        'apply_manifest() { if [[ "$DRY_RUN" == "true" ]]; then cat; else kubectl apply -f -; fi; }',
        'stop_instance() { if [[ "$DRY_RUN" == "true" ]]; then echo "kubectl delete jobset $1"; else kubectl delete jobset "$1"; fi; }',
        "start_instance() {", '  local target="$1"', '  local extra=""',
        '  if [[ "${DEBUG:-}" == "1" || "${DEBUG:-}" == "true" ]]; then extra+=" log_period=1"; fi',
        '  if [[ -n "${EVAL_EVERY:-}" ]]; then extra+=" eval_interval=${EVAL_EVERY}"; fi',
        '  xpk workload create --workload "${target}" --tpu-type v5p-8 --command "python3 -m maxtext.trainers.pre_train.train'
        ' maxtext/configs/base.yml run_name=${target} stepz=10 ${CKPT_EVERY:+checkpoint_period=${CKPT_EVERY}} ${extra}" | apply_manifest',
        "}",
        "start_all() {", "  for ((i = 0; i < REPLICAS; i++)); do", '    local target="${ROLLOUT_ID}"',
        '    if [[ $REPLICAS -gt 1 ]]; then target="${ROLLOUT_ID}-${i}"; fi', '    stop_instance "${target}"',
        '    start_instance "${target}"', "  done", "}",
        "start_all",
    ]) + "\n"


BUILT_FORMS = ("array", "string")
BUILT_PROGRAM = "python3 -m tunix.experimental.distributed.runtime.main"


def built_command(count: int, form: str, program: str = BUILT_PROGRAM) -> str:
    """A distributed launcher's trainer command whose own words are built behind tests: `count`
    optional parts, each behind a test of its own input, appended to an array (`CMD+=(--oI="$OI")`,
    run as `"${CMD[@]}"`) or to a string (`CMD="$CMD --oI=$OI"`, run as `$CMD`)."""
    if form == "array":
        lines = [f"CMD=({program})"] + [f'if [[ -n "$O{i}" ]]; then CMD+=(--o{i}="$O{i}"); fi' for i in range(count)]
        return "\n".join(["#!/bin/bash", *lines, '"${CMD[@]}"']) + "\n"
    lines = [f'CMD="{program}"'] + [f'if [[ -n "$O{i}" ]]; then CMD="$CMD --o{i}=$O{i}"; fi' for i in range(count)]
    return "\n".join(["#!/bin/bash", *lines, "$CMD"]) + "\n"


def distributed_node(count: int, program: str = BUILT_PROGRAM, ports: int = 0) -> str:
    """A distributed launcher's trainer node (google/tunix's experimental launcher.sh): a command
    array of fixed flags and `count` optional parts, each behind a test of its own input (the first
    appends three words, one holding blanks and one empty), exports in an
    if/else, a function that prints the command (`local label="$1"; shift; printf '  %q' "$@"`),
    and `exec "${CMD[@]}" > "$LOG" 2>&1`, all in a `( … ) &` subshell; with `ports`, one such node
    for each port of an array, in a `for` loop."""
    lines = ["#!/bin/bash", 'PY="${PY:-python3}"', 'LOG="${LOG:-/tmp/node.log}"',
             "print_command() {", '  local label="$1"', "  shift", '  echo "$label:"', "  printf '  %q' \"$@\"", "  echo", "}"]
    node = ["(", "  CMD=(", "    " + program.replace("python3", '"$PY"', 1), '    --mesh_fsdp="${FSDP:-4}"', '    --model_id="$MODEL_ID"']
    if ports:
        lines.append(f"PORTS=({' '.join(str(8000 + i) for i in range(ports))})")
        node.append('    --port="$port"')
    node += ["  )", '  if [[ -n "$O0" ]]; then', '    CMD+=(', '      --o0="$O0"', "      --o0_kwargs=\"{'max_norm': $MAX_NORM}\"",
             '      ""', "    )", "  fi"]
    node += [f'  if [[ -n "$O{i}" ]]; then CMD+=(--o{i}="$O{i}"); fi' for i in range(1, count)]
    node += ['  if [[ "${PATHWAYS:-0}" == "1" ]]; then', "    export JAX_PLATFORMS=proxy,cpu", "  else",
             "    export JAX_PLATFORMS=tpu,cpu", "  fi", '  print_command "Trainer command" "${CMD[@]}"',
             '  exec "${CMD[@]}" > "$LOG" 2>&1', ") &", "PID=$!"]
    if ports:
        node = ['for port in "${PORTS[@]}"; do', *node, "done"]
    return "\n".join([*lines, *node]) + "\n"


def launch_sites(commands: int, optional: int = 4) -> str:
    """A distributed launcher whose subcommands reach the same launch sites (google/tunix's
    experimental k8s_launcher.sh: `all`, `trainer`, `rollout`, … each start the same jobs): an
    options loop that reads `optional` options (`--kI VALUE`), a `case` on COMMAND with `commands`
    arms, each running a step of its own (`python3 prepare.py --stage=I`), then starting the
    trainer (flags captured from a function that prints a `${KI:+key=${KI}}` part of each option,
    and `async_checkpointing=sometimes`, which MaxText refuses) and the rollout workers (a
    --worker_startup_command string of the same parts). Every arm reaches the two launch sites
    with the same words."""
    keys = ("log_period", "eval_interval", "checkpoint_period", "max_target_length")
    parts = " ".join(f"${{K{i}:+{keys[i % len(keys)]}=${{K{i}}}}}" for i in range(optional))
    lines = ["#!/bin/bash", "while [[ $# -gt 0 ]]; do", '  case "$1" in']
    lines += [f'    --k{i}) K{i}="$2"; shift 2 ;;' for i in range(optional)]
    lines += ['    *) echo "unknown option: $1" >&2; exit 1 ;;', "  esac", "done",
              f"trainer_flags() {{ printf '%s' \"steps=10 {parts}\"; }}",
              "start_trainer() {", "  local flags", '  flags="$(trainer_flags)"',
              "  python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=rl async_checkpointing=sometimes ${flags}",
              "}",
              f'start_rollout() {{ python3 make_jobset.py --name=rollout --worker_startup_command="{parts} python3 -m tunix.rl.rollout.server"; }}',
              'case "${COMMAND:-all}" in', "  all) start_trainer; start_rollout ;;"]
    lines += [f"  step{i}) python3 prepare.py --stage={i}; start_trainer; start_rollout ;;" for i in range(commands)]
    lines += ['  *) echo "unknown command: $COMMAND" >&2; exit 1 ;;', "esac"]
    return "\n".join(lines) + "\n"


_SWITCH_PARTS = ('extra+=" log_period=5"', 'extra+=" eval_interval=7"', 'extra+=" checkpoint_period=9"')


def option_switches_launcher(switches: int, instances: int = 3) -> str:
    """A distributed launcher's shape (google/tunix's experimental launch_raiden.sh): switches that
    default from the environment (`DRY_RUN="${DRY_RUN:-false}"`), an options loop whose arms set
    them (`--dry-run) DRY_RUN=true`), one of them exported, then a function called for each element
    of an array of instances that reads them: the first three add a key of their own to a MaxText
    command line (which holds one key MaxText does not define, `stepz`), the others print, and the
    dry-run switch decides whether the workload is applied or printed."""
    names = ["DRY_RUN"] + [f"SW{i}" for i in range(1, switches)]
    arms = [f"    --{name.lower().replace('_', '-')}) {name}=true; shift ;;" for name in names]
    lines = ["#!/bin/bash", *(f'{name}="${{{name}:-false}}"' for name in names), "EXTRA_ARGS=()",
             "while [[ $# -gt 0 ]]; do", '  case "$1" in', *arms, '    *) EXTRA_ARGS+=("$1"); shift ;;', "  esac", "done",
             f"export {names[-1]}",
             'apply_or_print() { if [[ "$DRY_RUN" == "true" ]]; then cat; else kubectl apply -f -; fi; }',
             "start_instance() {", '  local target="$1"', '  local extra=""',
             *(f'  if [[ "${{{name}}}" == "true" ]]; then {_SWITCH_PARTS[i] if i < len(_SWITCH_PARTS) else f"echo {name}"}; fi'
               for i, name in enumerate(names[1:])),
             '  xpk workload create --workload "${target}" --command "python3 -m maxtext.trainers.pre_train.train'
             ' maxtext/configs/base.yml run_name=${target} stepz=10${extra}" | apply_or_print', "}",
             f"INSTANCES=({' '.join(f'roll-{i}' for i in range(instances))})",
             'for instance in "${INSTANCES[@]}"; do', '  start_instance "${instance}"', "done"]
    return "\n".join(lines) + "\n"


def restart_launcher(switches: int, options: int = 2) -> str:
    """A launcher that runs itself again (google/tunix's experimental launch_raiden.sh): switches
    that default from the environment (`DRY_RUN="${DRY_RUN:-false}"`) and that an options loop's arms
    set, `options` valued options (`--opt0=V` or `--opt0 V`) and an array of the arguments no arm
    takes. `start` submits a MaxText command line (with one key MaxText does not define, `stepz`)
    whose parts the switches add, or prints it under --dry-run; `stop` reads every switch; `restart`
    stops, then runs `"$0" start` with the options' values and that array."""
    names = ["DRY_RUN"] + [f"SW{i}" for i in range(1, switches)]
    valued = [f"OPT{i}" for i in range(options)]
    arms = [f"    --{name.lower().replace('_', '-')}) {name}=true; shift ;;" for name in names]
    for name in valued:
        flag = name.lower()
        arms += [f'    --{flag}=*) {name}="${{1#*=}}"; shift ;;', f'    --{flag}) {name}="$2"; shift 2 ;;']
    parts = [f'  if [[ "${{{name}}}" == "true" ]]; then extra+=" log_period={i}"; fi' for i, name in enumerate(names[1:], 1)]
    lines = ["#!/bin/bash", 'COMMAND=""', *(f'{name}=""' for name in valued),
             *(f'{name}="${{{name}:-false}}"' for name in names), "EXTRA_ARGS=()",
             "while [[ $# -gt 0 ]]; do", '  case "$1" in', '    start|stop|restart) COMMAND="$1"; shift ;;', *arms,
             '    *) EXTRA_ARGS+=("$1"); shift ;;', "  esac", "done",
             *(f'{name}="${{{name}:-default{i}}}"' for i, name in enumerate(valued)),
             "start() {", '  local extra=""', *parts,
             '  local cmd="python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml run_name=${OPT0} stepz=10${extra}"',
             '  if [[ "$DRY_RUN" == "true" ]]; then echo "$cmd"; else xpk workload create --workload "${OPT0}" --command "$cmd"; fi',
             "}",
             "stop_all() {", *(f'  if [[ "${{{name}}}" == "true" ]]; then echo "{name.lower()} was on"; fi' for name in names[1:]),
             '  if [[ "$DRY_RUN" == "true" ]]; then echo "would delete ${OPT0}"; else kubectl delete jobset "${OPT0}"; fi', "}",
             'case "$COMMAND" in', "  start) start ;;", "  stop) stop_all ;;",
             '  restart) stop_all; "$0" start ' + " ".join(f'--{name.lower()}="${{{name}}}"' for name in valued)
             + ' "${EXTRA_ARGS[@]}" ;;',
             '  *) echo "unknown command: $COMMAND" >&2; exit 1 ;;', "esac"]
    return "\n".join(lines) + "\n"
