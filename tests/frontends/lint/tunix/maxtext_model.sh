#!/bin/bash
# A Tunix PEFT run whose model MaxText builds: the model id is a Hugging Face id on one branch.
set -e
MODEL_ID=Qwen/Qwen3-8B
if [[ "${FROM_HUB}" == "1" ]]; then
  MODEL_ID=meta-llama/Llama-3.1-8B
fi
python -m tunix.cli.peft_main base_config.yaml \
  model_config.model_source=maxtext \
  model_config.model_id="${MODEL_ID}" \
  model_config.kwargs.base_emb_dim=4096 \
  tokenizer_config.tokenizer_path=/tokenizers/llama3 \
  tokenizer_config.tokenizer_type=sentencepiece
