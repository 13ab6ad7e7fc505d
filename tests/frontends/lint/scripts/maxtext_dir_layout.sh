#!/bin/bash
# A recipe of the MaxText/ package (MaxText 0.1.0 and before), run from the repository's root.
set -e
RUN_NAME=${RUN_NAME:-era}
if [[ "$ACCEL" == "gpu" ]]; then
  ATTN=cudnn_flash_te
else
  ATTN=flash
fi
python3 MaxText/train.py MaxText/configs/base.yml run_name=$RUN_NAME \
  attention=$ATTN model_fsdp_ag_once=true \
  quantize_kvcache=true kv_quant_axis=heads
python3 -m MaxText.train MaxText/configs/base.yml run_name=$RUN_NAME profiler=tensorboard steps=10
