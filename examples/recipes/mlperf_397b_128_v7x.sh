#!/usr/bin/env bash
# 128-chip trainer: tpu7x:4x4x8 = 256 devices = fsdp 32 x expert 2 x context 4.
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${DIR}/base.sh"

export TRAINER_MESH_FSDP="${TRAINER_MESH_FSDP:-32}"
export TRAINER_MESH_EXPERT="${TRAINER_MESH_EXPERT:-2}"
export TRAINER_MESH_CONTEXT="${TRAINER_MESH_CONTEXT:-4}"
export TRAIN_MICRO_BATCH_SIZE="${TRAIN_MICRO_BATCH_SIZE:-$((TRAINER_MESH_FSDP * TRAINER_MESH_EXPERT))}"
export NUM_MOE_TOKEN_CHUNKS="${NUM_MOE_TOKEN_CHUNKS:-2}"
export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} num_moe_token_chunks=${NUM_MOE_TOKEN_CHUNKS}"

if [[ "${TRAINER_TUNED_FLAGS:-false}" == "true" ]]; then
  source "${DIR}/tuned_block.sh"
fi
