#!/usr/bin/env bash
# 256-chip trainer (tpu7x:4x8x8, 512 devices), as the pull request had it before the review.
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export TRAINER_TPU_SLICE="${TRAINER_TPU_SLICE:-tpu7x:4x8x8}"
source "${DIR}/base.sh"

case "${TRAINER_MESH_EXPERT:-1}" in
  2) export TRAINER_MESH_FSDP="${TRAINER_MESH_FSDP:-32}" ;;
  *) export TRAINER_MESH_FSDP="${TRAINER_MESH_FSDP:-64}" ;;
esac
export TRAINER_MESH_EXPERT="${TRAINER_MESH_EXPERT:-1}"
export TRAINER_MESH_CONTEXT="${TRAINER_MESH_CONTEXT:-8}"
export TRAIN_MICRO_BATCH_SIZE="${TRAIN_MICRO_BATCH_SIZE:-64}"
if [[ "${TRAINER_MESH_EXPERT}" == "1" ]]; then
  export NUM_MOE_TOKEN_CHUNKS="${NUM_MOE_TOKEN_CHUNKS:-1}"
else
  export NUM_MOE_TOKEN_CHUNKS="${NUM_MOE_TOKEN_CHUNKS:-2}"
fi
export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} num_moe_token_chunks=${NUM_MOE_TOKEN_CHUNKS}"

if [[ "${TRAINER_TUNED_FLAGS:-false}" == "true" ]]; then
  source "${DIR}/tuned_block.sh"
  if [[ "${TRAINER_TPU_SLICE}" == "tpu7x:4x8x8" ]]; then
    export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} moe_chunk_pipeline=false"
    if [[ "${TRAINER_MESH_EXPERT}" == "1" ]]; then
      export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} query_proj=device key_proj=device value_proj=device out_proj=device qkv_proj=device"
    fi
  fi
fi
