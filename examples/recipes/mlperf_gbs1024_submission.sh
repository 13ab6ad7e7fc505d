#!/usr/bin/env bash
# The MLPerf submission wrapper: turns TRAINER_TUNED_FLAGS on and picks the trainer recipe for the slice.
# Usage: RECIPE_VARIANT=after ./mlperf_gbs1024_submission.sh  (before|after selects the 256-chip recipe)
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

export TRAINER_TUNED_FLAGS="${TRAINER_TUNED_FLAGS:-true}"
if [[ "${TRAINER_TUNED_FLAGS}" == "true" ]]; then
  export TUNIX_LOGPS_SHARDED_HEAD="${TUNIX_LOGPS_SHARDED_HEAD:-fused}"
  export PACK_PAD_POSITION="${PACK_PAD_POSITION:-start}"
else
  export TUNIX_LOGPS_SHARDED_HEAD="${TUNIX_LOGPS_SHARDED_HEAD:-local}"
fi
# Chunks of 4096 were measured with the head only; without it the log-prob program failed to compile.
case "${TUNIX_LOGPS_SHARDED_HEAD,,}" in
  0|false|off|no) export COMPUTE_LOGPS_CHUNK_SIZE="${COMPUTE_LOGPS_CHUNK_SIZE:-1024}" ;;
  *) export COMPUTE_LOGPS_CHUNK_SIZE="${COMPUTE_LOGPS_CHUNK_SIZE:-4096}" ;;
esac

# Fully dropless / replay overrides fall back to an offloaded context and more token chunks.
if [[ "${RAGGED_BUFFER_FACTOR:-}" == "-1" || "${RETRY_DROPLESS_FINAL_MICRO_BATCH:-false}" == "true" ]]; then
  export REMAT_CONTEXT=offload
  export NUM_MOE_TOKEN_CHUNKS="${NUM_MOE_TOKEN_CHUNKS:-4}"
fi

if [[ "${TRAINER_TPU_SLICE:-tpu7x:4x4x8}" == "tpu7x:4x8x8" ]]; then
  source "${DIR}/mlperf_397b_256_v7x_${RECIPE_VARIANT:-after}.sh"
else
  source "${DIR}/mlperf_397b_128_v7x.sh"
fi
