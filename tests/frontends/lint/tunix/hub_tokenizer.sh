#!/bin/bash
python -m tunix.cli.peft_main base_config.yaml tokenizer_config.tokenizer_path=meta-llama/Llama-3.2-1B tokenizer_config.tokenizer_type=huggingface training_config.eval_every_n_steps=5
