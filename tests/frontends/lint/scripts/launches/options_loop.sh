#!/bin/bash
# Long options read in a loop with shift; an unknown one stops the script (written for these tests).
set -e
MODEL=default
CHUNKS=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --model) MODEL="$2"; shift 2 ;;
    --pipeline) CHUNKS=2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name="${MODEL}" \
  num_moe_token_chunks="${CHUNKS}" use_ring_of_experts=false
