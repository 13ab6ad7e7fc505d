#!/bin/bash
# Short options read with getopts (written for these tests).
CHUNKS=1
RUN=opts
usage() { echo "usage: $0 [-n RUN_NAME] [-p]" >&2; exit 1; }
while getopts "n:p" opt; do
  case "${opt}" in
    n) RUN="${OPTARG}" ;;
    p) CHUNKS=2 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name="${RUN}" \
  num_moe_token_chunks="${CHUNKS}" use_ring_of_experts=false
