#!/bin/bash
# The command line is written in a here-document and run with bash -c (written for these tests).
set -euo pipefail
CHUNKS="${CHUNKS:-2}"
read -r -d '' TRAIN_CMD <<EOF_CMD || true
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=heredoc \
  num_moe_token_chunks=${CHUNKS} use_ring_of_experts=false
EOF_CMD
bash -c "${TRAIN_CMD}"
