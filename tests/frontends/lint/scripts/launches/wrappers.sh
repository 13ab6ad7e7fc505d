#!/bin/bash
# Launches written behind the wrappers people put in front of a trainer, each with the same broken
# pair: more than one MoE token chunk without the ring of experts (written for these tests).
TRAIN="python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=wrapped"
nice -n 10 $TRAIN num_moe_token_chunks=2 use_ring_of_experts=false
stdbuf -oL -eL $TRAIN num_moe_token_chunks=2 use_ring_of_experts=false
timeout --signal=TERM -k 30s 12h $TRAIN num_moe_token_chunks=2 use_ring_of_experts=false
numactl --cpunodebind=0 --membind 0 $TRAIN num_moe_token_chunks=2 use_ring_of_experts=false
taskset -c 0-31 $TRAIN num_moe_token_chunks=2 use_ring_of_experts=false
env -u PYTHONPATH JAX_PLATFORMS=tpu $TRAIN num_moe_token_chunks=2 use_ring_of_experts=false
uv run --no-sync --with pyyaml $TRAIN num_moe_token_chunks=2 use_ring_of_experts=false
uv run --frozen -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=uv num_moe_token_chunks=2 use_ring_of_experts=false
/usr/bin/env python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=env num_moe_token_chunks=2 use_ring_of_experts=false
/usr/bin/env bash -c "$TRAIN num_moe_token_chunks=2 use_ring_of_experts=false"
bash -o pipefail -c "$TRAIN num_moe_token_chunks=2 use_ring_of_experts=false | tee train.log"
sh -e -c "$TRAIN num_moe_token_chunks=2 use_ring_of_experts=false"
nohup time -p nice $TRAIN num_moe_token_chunks=2 use_ring_of_experts=false
