#!/bin/bash
# Forwards its arguments, as Tunix's docs show for a MaxText model (for the tests).
bash "$(dirname "$0")/sft.sh" \
  --model_config.model_source="maxtext" \
  --model_config.model_path="gs://bucket/ckpt"
