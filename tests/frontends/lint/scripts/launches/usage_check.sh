#!/bin/bash
# The run name is the first argument; without it the script prints its usage (written for these tests).
if [ -z "${1:-}" ]; then
  echo "usage: $0 RUN_NAME [STEPS]" >&2
  exit 1
fi
RUN_NAME=$1
STEPS=${2:-100}
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name="${RUN_NAME}" steps="${STEPS}" \
  num_moe_token_chunks=2 use_ring_of_experts=false
