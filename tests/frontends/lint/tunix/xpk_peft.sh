#!/bin/bash
# An SFT launch handed to XPK as one --command string (for the tests).
STEPS="${STEPS:-20}"
xpk workload create --cluster c --workload sft --tpu-type v5p-8 --num-slices 1 \
  --command "cd /app && python -m tunix.cli.peft_main base_config.yaml model_config.model_name=gemma3-1b \
    model_config.model_source=huggingface tokenizer_config.tokenizer_path=/tmp/t tokenizer_config.tokenizer_type=sentencepiece \
    training_config.eval_every_n_steps=5 training_config.max_steps=$STEPS 2>&1 | tee log.txt"
