#!/usr/bin/env bash
# Required variables checked by name in a helper (`${!name:-}`), one of them also read with a
# default before the check (written for test_verdicts.py).
check_set() {
  local absent=()
  for name in "$@"; do
    [ -z "${!name:-}" ] && absent+=("$name")
  done
  if [ "${#absent[@]}" -gt 0 ]; then
    echo "please set: ${absent[*]}" >&2
    exit 1
  fi
}
RUN_ROOT="${JOB_BUCKET:-}"
check_set JOB_BUCKET JOB_ZONE
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=r base_output_directory=$RUN_ROOT bogus_key=1
