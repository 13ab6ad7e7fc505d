#!/bin/bash
# A pre-training launch in the style of MaxText's own recipes (written for these tests).
set -euo pipefail
RUN_NAME=${RUN_NAME:-demo}
STEPS=${STEPS:-100}
if [[ "${SIZE:-small}" == "large" ]]; then
  BATCH=0.5
else
  BATCH=4
fi
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml \
  run_name="${RUN_NAME}" steps="${STEPS}" \
  per_device_batch_size=${BATCH} \
  enable_checkpointing: False \
  scan_layers=${SCAN_LAYERS} \
  'prompt=I love to'
