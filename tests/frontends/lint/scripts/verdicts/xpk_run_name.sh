#!/bin/bash
# An XPK recipe of the ironwood family's shape: the workload's name is a command's output, and
# only run_name's value and the log copy's path hold it in the --command string.
export BASE_OUTPUT_DIR="gs://my-bucket/runs"
export WORKLOAD_NAME="$(printf "%.26s" "${USER//_/-}-llama3-1-70b-8192-4x8x8")-$(date +%Y%m%d-%H%M)"

MAXTEXT_ARGS="\
model_name=llama3.1-70b \
per_device_batch_size=2 \
wi_tile_fwd_buffer_count=2 \
wo_tile_fwd_buffer_count=3 \
steps=30 \
base_output_directory=${BASE_OUTPUT_DIR} \
run_name=${WORKLOAD_NAME} \
output_dir=${BASE_OUTPUT_DIR}"

xpk workload create \
  --cluster=my-cluster \
  --device-type=tpu7x-4x8x8 \
  --num-slices=1 \
  --workload="${WORKLOAD_NAME}" \
  --command="set -e && set -o pipefail && export JAX_PLATFORMS='tpu,cpu' && \
python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml ${MAXTEXT_ARGS} | tee train.log && \
gsutil cp train.log ${BASE_OUTPUT_DIR}/${WORKLOAD_NAME}/logs/train-\${TPU_WORKER_ID}.log"
