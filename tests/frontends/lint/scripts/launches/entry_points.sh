#!/bin/bash
# MaxText's entry points under the names recipes use for them, each with the same broken pair
# (written for these tests).
python3 MaxText/decode.py MaxText/configs/base.yml run_name=a num_moe_token_chunks=2 use_ring_of_experts=false
python3 -m MaxText.decode MaxText/configs/base.yml run_name=b num_moe_token_chunks=2 use_ring_of_experts=false
python3 /deps/MaxText/maxengine_server.py MaxText/configs/base.yml run_name=c num_moe_token_chunks=2 use_ring_of_experts=false
python3 MaxText/generate_param_only_checkpoint.py MaxText/configs/base.yml run_name=d num_moe_token_chunks=2 use_ring_of_experts=false
python3 maxtext/train_compile.py src/maxtext/configs/base.yml run_name=e num_moe_token_chunks=2 use_ring_of_experts=false
python3 -m maxtext.train_compile src/maxtext/configs/base.yml run_name=f num_moe_token_chunks=2 use_ring_of_experts=false
python3 -m src.maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=g num_moe_token_chunks=2 use_ring_of_experts=false
python3 src/maxtext/trainers/pre_train/train.py src/maxtext/configs/base.yml run_name=h num_moe_token_chunks=2 use_ring_of_experts=false
python3 -m MaxText.train MaxText/configs/base.yml run_name=i num_moe_token_chunks=2 use_ring_of_experts=false
