# A program that is neither MaxText's nor Tunix's (`python3 -m serve_offline`) behind a command
# word that is empty unless -n is given; its arguments read caller variables, one of them a string
# of MaxText keys it hands on: there is no MaxText or Tunix command line here to judge (written
# for test_verdicts.py).
dry=false
for opt in "$@"; do
  case $opt in
    -n) dry=true ;;
  esac
done
if "$dry"; then RUNNER=echo; else RUNNER=''; fi
if [ -z "$VOCAB" ]; then VOCAB="${ASSETS_DIR:-${PKG_DIR:-${REPO_DIR:-$PWD}/share}/assets}"/vocab.model; fi
if [ -z "$SIZES" ]; then SIZES="128,16|256,8"; fi
if [ -z "$FACTOR" ]; then FACTOR=1.5; fi
if [ -z "$ENGINE" ]; then ENGINE="model_name=default tokenizer_path=${VOCAB} load_parameters_path=${WEIGHTS}"; fi
${RUNNER} python3 -m serve_offline --sizes ${SIZES} --engine "${ENGINE}" --factor ${FACTOR} \
  2>&1 | tee ${LOGS}/serve.log
