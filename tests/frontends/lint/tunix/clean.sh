#!/bin/bash
export HF_TOKEN="${HF_TOKEN:-hf_secret}"
python -m tunix.cli.peft_main base_config.yaml \
  model_config.model_name=llama3.2-1b model_config.model_source=huggingface \
  tokenizer_config.tokenizer_path=meta-llama/Llama-3.2-1B \
  optimizer_config.opt_type=adamw optimizer_config.learning_rate=1e-5 \
  training_config.eval_every_n_steps=5 training_config.max_steps=10
