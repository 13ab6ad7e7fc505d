# An options loop that shifts inside `for arg in "$@"`, and caller variables defaulted from a
# command's output, decide the words of one launch together (written for test_verdicts.py).
run_name="bench_$(date +%s)"
stages=prefill,generate
for arg in "$@"; do
    case $arg in
        -p) profile=true ;;
        -r=*|--run=*) run_name="${arg#*=}" ;;
        -r|--run) shift; run_name="$1" ;;
        -s=*|--stages=*) stages="${arg#*=}" ;;
        -s|--stages) shift; stages="$1" ;;
    esac
    shift
done
if [[ -z ${OUT_DIR} ]] ; then
    export OUT_DIR=$(mktemp -d)
fi
if [[ -z ${LOG_PATH} ]] ; then
    export LOG_PATH="${OUT_DIR}/results.txt"
fi
python3 -m maxtext.inference.inference_microbenchmark src/maxtext/configs/base.yml base_output_directory=$OUT_DIR \
    inference_microbenchmark_stages=$stages inference_microbenchmark_log_file_path=$LOG_PATH run_name=$run_name bogus_key=1
