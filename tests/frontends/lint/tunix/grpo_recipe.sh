#!/bin/bash
# A GRPO launch written the way Tunix's example scripts write theirs (for the tests).
set -euo pipefail

batch_size=${batch_size:-1}
num_generations=${num_generations:-4}
if [[ "${MODE:-}" == "small" ]]; then
  train_mesh="(2,2,1)"
else
  train_mesh="(2,2)"
fi
export T_NUM_BATCHES=100

python3 -m tunix.cli.grpo_main \
  base_config.yaml \
  override_config_file=configs/run.yaml \
  actor_model_config.mesh.shape="$train_mesh" \
  actor_model_config.mesh.axis_names="('fsdp','tp')" \
  batch_sise=$batch_size \
  grpo_config.num_generations=$num_generations \
  model_config.use_flash_attn=true \
  "$@"
