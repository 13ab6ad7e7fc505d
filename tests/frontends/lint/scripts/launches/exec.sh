#!/bin/bash
# The script becomes the trainer: what follows exec never runs (written for these tests).
set -e
export M_STEPS=20
if [[ "${DEBUG_ONE_STEP:-}" == 1 ]]; then
  exec env M_STEPS=1 nice python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=debug \
    num_moe_token_chunks=4 use_ring_of_experts=false
fi
exec python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=main log_period=7.5
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=never steps=0.5
