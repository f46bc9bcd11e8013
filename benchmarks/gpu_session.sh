# Device calls for a session that changed code generation or the runtime,
# from the repo root on the device machine (the libcst wheel in .whl/ and,
# for the plots, matplotlib's in .whl_mpl/: carry both; see device_env.sh):
#   bash benchmarks/gpu_session.sh tests   # every GPU-marked test, 7 groups at once
#   bash benchmarks/gpu_session.sh bench   # launch costs, then the workload table
# Logs, bench.json, suite.json and the plots land in $OUT.
. benchmarks/device_env.sh
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
case "${1:-tests}" in
tests)
    # -P: the repo root must not shadow the laid-out kdsl package in /tmp/kd.
    # Seven groups in parallel on the one GPU (the whole set takes over 10
    # minutes one after another); a log each in $OUT.
    groups=(
        "test_wgmma_gpu.py test_mma_gpu.py test_gemm_mma_gpu.py"
        "PYTORCH test_rows_gpu.py test_elementwise_torch_gpu.py"
        "test_cache_hints_gpu.py test_pointer_swap_gpu.py test_block_option_gpu.py test_names_gpu.py test_codegen_gpu.py test_lanemask_gpu.py test_ports_gpu.py test_nan_payloads.py"
        "test_examples_gpu.py"
        "test_interpret_gpu.py"
        # 2,000 random kernels: a process pool compiles them first (about
        # two minutes with the other groups running; see the file)
        "test_fuzz_gpu.py"
        "test_builtins_gpu.py test_autotune_gpu.py test_debug_gpu.py test_device_functions_gpu.py test_dynamic_smem_gpu.py test_grid_sync_gpu.py test_kernel_options_gpu.py test_lang11_gpu.py test_launch_gpu.py test_memory_order_gpu.py test_semantics_gpu.py test_vectors_gpu.py test_warp_gpu.py"
    )
    i=0
    for g in "${groups[@]}"; do
        i=$((i + 1))
        files=""
        for f in $g; do
            [ "$f" = PYTORCH ] && files="$files tests/pytorch" || files="$files tests/gpu/$f"
        done
        (timeout 540 python3 -P -m pytest -q -p no:cacheprovider -m gpu -rf \
            --durations=5 $files "${@:2}" >"$OUT/gpu-tests-$i.log" 2>&1
            echo "exit $?" >>"$OUT/gpu-tests-$i.log") &
    done
    wait
    for i in $(seq 1 $i); do echo "== group $i"; tail -4 "$OUT/gpu-tests-$i.log"; done
    ;;
bench)
    timeout 150 python3 -P benchmarks/bench.py 2>&1 | tee "$OUT/bench.log" | tail -12
    # at most 8 files come back: the plots travel as one archive
    mkdir -p /tmp/suite
    OUT=/tmp/suite timeout 400 python3 -P benchmarks/suite.py "${@:2}" 2>&1 |
        tee "$OUT/suite.log"
    cp /tmp/suite/suite.json "$OUT/" 2>/dev/null
    tar czf "$OUT/plots.tgz" -C /tmp/suite . 2>/dev/null
    ;;
esac
