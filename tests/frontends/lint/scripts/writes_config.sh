#!/bin/bash
# A GPU recipe that writes its MaxText config before it starts the trainer on it.
set -e
OUT=${OUT:-/workspace/run}
NAME=llama-gpu
mkdir -p "$OUT/configs"
cat > "$OUT/configs/${NAME}.yml" <<EOF
base_config: "base.yml"
run_name: "${NAME}-1"
hardware: "gpu"
attention: "dot_product"
log_period: 2.5
dcn_data_parallelism: -1
EOF
cat <<'EOF' >> "$OUT/configs/${NAME}.yml"
steps: $STEPS
EOF
echo 'base_config: "base.yml"
enable_checkpointing: maybe' > "$OUT/configs/second.yml"
python3 MaxText/train.py "$OUT/configs/${NAME}.yml" per_device_batch_size=1
python3 MaxText/train.py "$OUT/configs/second.yml"
