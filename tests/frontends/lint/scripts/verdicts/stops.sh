#!/bin/bash
# Parallelism derived from the GPUs a command counts (not known here), and a value set on one arm only.
set -eou pipefail
GPUS_PER_NODE=$(nvidia-smi -L | grep -c '^GPU')
NODES=${NODES:-1}
FSDP=${FSDP:-8}
ICI_DP=$((GPUS_PER_NODE / FSDP))
DCN_DP=$((GPUS_PER_NODE * NODES / (FSDP * ICI_DP)))
if [[ "${MODE:-}" == "pinned" ]]; then
  STEPS=20
fi
OUTPUT=$(mktemp -d)
SETTINGS="src/maxtext/configs/base.yml run_name=gpu base_output_directory=${OUTPUT} \
  ici_fsdp_parallelism=${FSDP} ici_data_parallelism=${ICI_DP} dcn_data_parallelism=${DCN_DP} \
  steps=${STEPS} "
python3 -m maxtext.trainers.pre_train.train $SETTINGS
