#!/bin/bash
# An XPK launch whose --command is a small shell command: exports before the trainer, its output
# redirected and piped to tee, and one key set from an input of this script.
set -euo pipefail
STAGES="${STAGES:-1}"
ARGS="run_name=w2 steps=10 ici_pipeline_parallelism=${STAGES} num_pipeline_microbatches=3"
CMD="export JAX_PLATFORMS=tpu && python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml ${ARGS} 2>&1 >/tmp/out.log 2> /tmp/err.log |& tee /tmp/train.log"
xpk workload create --cluster c1 --workload w2 --tpu-type=v5p-32 --command="$CMD"
