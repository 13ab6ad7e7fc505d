#!/bin/bash
python -m tunix.cli.peft_main base_config.yaml tokenizer_config.tokenizer_path=/tmp/t \
  tokenizer_config.tokenizer_type=sentencepiece training_config.eval_every_n_steps=5 "$@"
