#!/usr/bin/env bash
# Defaults shared by the Qwen3.5-397B v7x recipes (written in the seed's style).
# Sourced by the recipes; every value can be overridden from the environment.
set -euo pipefail

export TRAINER_TPU_SLICE="${TRAINER_TPU_SLICE:-tpu7x:4x4x8}"
export REMAT_CONTEXT="${REMAT_CONTEXT:-remat}"
export RAGGED_BUFFER_FACTOR="${RAGGED_BUFFER_FACTOR:-2.75}"
export MAX_SEQ_TOKEN_PER_TPU="${MAX_SEQ_TOKEN_PER_TPU:-65536}"

# The recipe's MaxText keys; the launcher hands MAXTEXT_EXTRA_FLAGS to Tunix, which appends it last.
export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS:-} custom_mesh_and_rule=cp-as-ep \
use_ring_of_experts=true use_ragged_sort=true sparse_matmul=true \
ragged_buffer_factor=${RAGGED_BUFFER_FACTOR} context=${REMAT_CONTEXT}"
