#!/bin/bash
# A counted loop under set -e, then the launch (written for these tests).
set -euo pipefail
HOSTS=""
for ((i = 0; i < 4; i++)); do
  HOSTS+="host-${i},"
done
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=loop \
  num_moe_token_chunks=2 use_ring_of_experts=false
