#!/bin/bash
# A GPU recipe: the config written on the host, copied into place inside the container, where
# bash -c runs the trainer on it.
OUTPUT_DIR="$HOME/output"
mkdir -p $OUTPUT_DIR
echo 'base_config: "base.yml"
run_name: "llama_gpu"
hardware: "gpu"
steps: 30.5
per_device_batch_size: 7' > $OUTPUT_DIR/llama_gpu.yml
docker=docker
$docker run --rm --privileged --network host -v $OUTPUT_DIR:/workspace/maxtext/output \
  -w /workspace/maxtext $IMAGE /bin/bash -c "
        set -e
        cp $OUTPUT_DIR/llama_gpu.yml MaxText/configs/llama_gpu.yml
        python MaxText/train.py MaxText/configs/llama_gpu.yml base_output_directory=output log_period=0.5 2>&1 |& tee -a run.log
    "
