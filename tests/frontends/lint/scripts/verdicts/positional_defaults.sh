#!/bin/bash
# Arguments with defaults, and a mode argument compared with a literal (no shift: each argument is its own).
set -euo pipefail
PER_DEVICE_BATCH_SIZE=${1:-${PER_DEVICE_BATCH_SIZE:-4}}
ICI_FSDP_PARALLELISM=${2:-${ICI_FSDP_PARALLELISM:-64}}
EXECUTABLE=${3:-train}
if [[ "$EXECUTABLE" == "train_compile" ]]; then
  TOPOLOGY=${4}
  python3 -m maxtext.trainers.pre_train.train_compile src/maxtext/configs/base.yml run_name=compile \
    per_device_batch_size="${PER_DEVICE_BATCH_SIZE}" ici_fsdp_parallelism="${ICI_FSDP_PARALLELISM}" \
    compile_topology="${TOPOLOGY}" compile_topology_num_slices=1
else
  python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=train \
    per_device_batch_size="${PER_DEVICE_BATCH_SIZE}" ici_fsdp_parallelism="${ICI_FSDP_PARALLELISM}"
fi
