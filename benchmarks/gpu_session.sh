# Device calls for a session that changed code generation or the runtime,
# from the repo root on the device machine (the libcst wheel in .whl/ and,
# for the plots, matplotlib's in .whl_mpl/: carry both; see device_env.sh):
#   bash benchmarks/gpu_session.sh tests   # every GPU-marked test, 10 groups at once
#   bash benchmarks/gpu_session.sh bench   # launch costs, then the workload table
#   bash benchmarks/gpu_session.sh sgemm   # every SGEMM candidate vs cuBLAS (~1 min)
#   bash benchmarks/gpu_session.sh gemm    # gemm_tma's split-K GPU tests, then the bf16
#                                          # GEMM shapes, old and new choices (< 4 min)
#   bash benchmarks/gpu_session.sh attnbwd # the attention backward: its GPU tests, then
#                                          # the benchmark against SDPA (~3 min)
#   bash benchmarks/gpu_session.sh fp8     # the fp8 GPU tests, then fp8_bench.py (~3 min)
#   bash benchmarks/gpu_session.sh torch   # PyTorch hot path: kdsl ops vs torch, Triton (<150 s)
#   bash benchmarks/gpu_session.sh ports   # tests/ports/ against their CUDA originals (< 2 min)
#   bash benchmarks/gpu_session.sh sweep   # every family over its shape sweep (~6 min)
#   bash benchmarks/gpu_session.sh profile [transpose gemm attention]
#                                          # Nsight Compute on the sweeps' worst shapes
#   bash benchmarks/gpu_session.sh progress # the open issues' numbers in one call (< 9.5 min):
#                                          # ports, fp8, torch ops (small), the GEMM shapes,
#                                          # the attention/transpose/softmax sweeps
# Logs, bench.json, suite.json and the plots land in $OUT.
. benchmarks/device_env.sh
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
case "${1:-tests}" in
tests)
    # -P: the repo root must not shadow the laid-out kdsl package in /tmp/kd.
    # Groups in parallel on the one GPU, each spread over pytest-xdist workers
    # (NVRTC compiles dominate; the whole set takes over 10 minutes in one
    # process); a log each, returned as one archive with a summary.
    #
    # A group is its test files, then optionally "|" and a pytest -k
    # expression (one file split over several groups); WORKERS=N sets the
    # group's xdist workers, SERIAL runs it in one process.
    #
    # Each group should finish in under 6 minutes, so that the whole run fits
    # in one 10-minute device command.  Session 6's run (benchmarks/RESULTS.md,
    # "session 6"): tensor cores 96 s, PyTorch 82 s, codegen/names/ports 33 s,
    # the interpreter against the GPU 100 s, the fuzzer 99 s, built-ins 71 s,
    # but test_examples_gpu.py 383-412 s in one group.  It is split in three
    # below: the normalisations (layer_norm, rms_norm: autotuned, forward and
    # backward, 7 cases, a worker each), softmax and the matrix kernels, and
    # the rest.  Session 8 measured the split (benchmarks/RESULTS.md): 180,
    # 147 and 66 s, every group under 181 s, the whole command 185 s.
    examples_heavy="layer_norm or rms_norm"
    examples_mid="softmax or gemm or matmul or attention"
    groups=(
        "test_wgmma_gpu.py test_mma_gpu.py test_gemm_mma_gpu.py test_tma_gpu.py test_attention_gpu.py test_attention_tma_gpu.py test_attention_backward_gpu.py"
        "test_wgmma_fp8_gpu.py test_gemm_fp8_gpu.py test_gemm_int8_gpu.py"
        "PYTORCH test_rows_gpu.py test_elementwise_torch_gpu.py"
        "test_cache_hints_gpu.py test_pointer_swap_gpu.py test_block_option_gpu.py test_names_gpu.py test_codegen_gpu.py test_lanemask_gpu.py test_ports_gpu.py test_structs_gpu.py test_nan_payloads.py test_allreduce_multi_gpu.py test_allreduce_ranks_one_gpu.py"
        "WORKERS=4 test_examples_gpu.py|$examples_heavy"
        "test_examples_gpu.py|$examples_mid"
        "test_examples_gpu.py|not ($examples_heavy or $examples_mid)"
        "test_interpret_gpu.py"
        # 2,000 random kernels: a process pool compiles them first (about
        # two minutes with the other groups running; see the file), so one
        # pytest process (each xdist worker would prepare them all again)
        "SERIAL test_fuzz_gpu.py"
        # 1,600 feature kernels (issue 23), the same design: about 0.36 s of
        # one CPU core each to prepare (2026-12-02, the 2-core build machine),
        # so about 100 s of the pool with the other groups running
        "SERIAL test_fuzz_features_gpu.py"
        "test_builtins_gpu.py test_autotune_gpu.py test_debug_gpu.py test_device_functions_gpu.py test_dynamic_smem_gpu.py test_grid_sync_gpu.py test_kernel_options_gpu.py test_lang11_gpu.py test_launch_gpu.py test_memory_order_gpu.py test_semantics_gpu.py test_vectors_gpu.py test_warp_gpu.py test_contract_gpu.py test_fast_math_gpu.py test_facts_gpu.py"
    )
    mkdir -p /tmp/gpu-logs
    i=0
    for g in "${groups[@]}"; do
        # GPU_TESTS_SKIP=REGEX leaves out the groups it matches (e.g. "fuzz"
        # in a session that changed no arithmetic: their CPU pools then
        # leave the cores to the other groups); the summary lists them.
        # The regex sees the whole group, its -k expression included: the
        # examples' last group names layer_norm in its "not (...)", so the
        # normalisations' group alone is "WORKERS=4" (session 12's
        # "layer_norm" left out both)
        if [ -n "${GPU_TESTS_SKIP:-}" ] && [[ "$g" =~ $GPU_TESTS_SKIP ]]; then
            echo "skipped: $g" >>/tmp/gpu-logs/skipped.log
            continue
        fi
        i=$((i + 1))
        files=""
        select=()
        case "$g" in
        *"|"*) select=(-k "${g#*|}"); g="${g%%|*}" ;;
        esac
        workers="${GPU_TESTS_WORKERS:-3}"
        for f in $g; do
            case "$f" in
            PYTORCH) files="$files tests/pytorch" ;;
            SERIAL) workers=0 ;;
            WORKERS=*) workers="${f#WORKERS=}" ;;
            *) files="$files tests/gpu/$f" ;;
            esac
        done
        (timeout "${GPU_TESTS_TIMEOUT:-540}" python3 -P -m pytest -q -p no:cacheprovider \
            -m gpu -rf --durations=5 -n "$workers" $files "${select[@]}" "${@:2}" \
            >"/tmp/gpu-logs/gpu-tests-$i.log" 2>&1
            echo "exit $?" >>"/tmp/gpu-logs/gpu-tests-$i.log") &
    done
    wait
    cat /tmp/gpu-logs/skipped.log 2>/dev/null
    for i in $(seq 1 $i); do
        echo "== group $i"
        grep -E "^(FAILED|ERROR)|passed|failed|^exit" "/tmp/gpu-logs/gpu-tests-$i.log" | tail -25
    done | tee "$OUT/gpu-tests-summary.log"
    tar czf "$OUT/gpu-logs.tgz" -C /tmp/gpu-logs .
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
attnbwd)
    # the attention backward's GPU tests (the operator against SDPA, every
    # configuration of each pass, the interpreter against the GPU), then the
    # benchmark (checked first) against SDPA's flash backward
    timeout 240 python3 -P -m pytest -q -p no:cacheprovider -m gpu -rf --durations=5 \
        -n 4 tests/gpu/test_attention_backward_gpu.py tests/gpu/test_examples_gpu.py \
        tests/gpu/test_interpret_gpu.py -k attention_backward 2>&1 |
        tee "$OUT/attnbwd-tests.log" | tail -20
    timeout 240 python3 -P benchmarks/attention_bwd_bench.py "${@:2}" 2>&1 |
        tee "$OUT/attnbwd-bench.log"
    ;;
torch)
    # then the fast path's GPU tests (eager, gradients, CUDA graph, compile)
    timeout 150 python3 -P benchmarks/torch_ops.py --out "$OUT" "${@:2}" 2>&1 |
        tee "$OUT/torch_ops.log" | tail -75
    timeout 240 python3 -P -m pytest -q -p no:cacheprovider -m gpu -rf -n 0 \
        tests/pytorch/test_fast_path.py tests/pytorch/test_replay_gpu.py 2>&1 |
        tee "$OUT/torch_tests.log" | tail -15
    ;;
sweep)
    # suite.py --sweep: odd, prime and model shapes, 177 cases; --budget (330 s
    # by default) bounds it, the rest of a family past its share is listed
    # as not run. Extra arguments go to suite.py (--family softmax ...).
    mkdir -p /tmp/suite
    OUT=/tmp/suite timeout 480 python3 -P benchmarks/suite.py --sweep "${@:2}" 2>&1 |
        tee "$OUT/suite-sweep.log"
    cp /tmp/suite/suite.json "$OUT/suite-sweep.json" 2>/dev/null
    python3 -P benchmarks/report.py /tmp/suite/suite.json >"$OUT/sweep-tables.md"
    tar czf "$OUT/plots-sweep.tgz" -C /tmp/suite . 2>/dev/null
    ;;
gemm)
    # the split-K tests (both ways of adding the slices, bit for bit), then
    # gemm_shapes.py's bf16 table, profile and EDGE comparison; the
    # autotuner's tables go to gemm-tuned.log
    timeout "${GEMM_TESTS_TIMEOUT:-100}" python3 -P -m pytest -q -p no:cacheprovider \
        -m gpu -rf --durations=5 -n 4 tests/gpu/test_tma_gpu.py \
        -k "split_k or adds_the_slices" 2>&1 | tee "$OUT/gemm-tests.log" | tail -8
    timeout "${GEMM_BENCH_TIMEOUT:-200}" python3 -P benchmarks/gemm_shapes.py --family gemm \
        --log "$OUT/gemm-tuned.log" "${@:2}" 2>&1 | tee "$OUT/gemm-shapes.log"
    ;;
profile)
    # Nsight Compute on the sweeps' worst shapes (benchmarks/ncu_targets.py:
    # each target checked and warmed up first, then profiled once between
    # cudaProfilerStart/Stop); clocks left alone (METHOD.md). A target each
    # (transpose gemm attention by default), a report each in $OUT.
    targets="${*:2}"
    for target in ${targets:-transpose gemm attention}; do
        timeout 150 ncu --clock-control none --profile-from-start off \
            --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section LaunchStats --section Occupancy \
            --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum \
            python3 -P benchmarks/ncu_targets.py "$target" \
            >"$OUT/ncu-$target.txt" 2>&1
        echo "== $target: exit $?"
        grep -E "^  [a-z_]+|Duration|DRAM Throughput|Memory Throughput|L2 Hit|Achieved Occupancy|Registers Per|dram__bytes|lts__t_sectors" \
            "$OUT/ncu-$target.txt" | head -90
    done
    ;;
sgemm)
    timeout 240 python3 -P benchmarks/sgemm_sweep.py "${@:2}" 2>&1 |
        tee "$OUT/sgemm_sweep.log"
    ;;
fp8)
    # the fp8 wgmma and GEMM tests (-s: the wgmma test prints, case by case,
    # whether the GPU agreed with the interpreter bit for bit), then the
    # benchmark: per-tensor vs torch._scaled_mm, block-scaled vs per-tensor
    timeout 200 python3 -P -m pytest -q -s -p no:cacheprovider -m gpu -rf -n 0 \
        tests/gpu/test_wgmma_fp8_gpu.py 2>&1 | tee "$OUT/fp8-wgmma-tests.log" |
        grep -E "fp8 wgmma|passed|failed|^FAILED|^ERROR"
    timeout 300 python3 -P -m pytest -q -p no:cacheprovider -m gpu -rf --durations=5 \
        -n 3 tests/gpu/test_gemm_fp8_gpu.py 2>&1 | tee "$OUT/fp8-gemm-tests.log" | tail -30
    timeout 200 python3 -P benchmarks/fp8_bench.py "${@:2}" 2>&1 | tee "$OUT/fp8_bench.log"
    ;;
progress)
    # each step bounded, so that the whole fits one 10-minute device command;
    # the logs come back as one archive, and the tables' ends are printed
    mkdir -p /tmp/progress/suite
    P=/tmp/progress
    timeout 110 python3 -P benchmarks/ports.py --json $P/ports.json >$P/ports.log 2>&1
    timeout 110 python3 -P benchmarks/fp8_bench.py >$P/fp8_bench.log 2>&1
    timeout 80 python3 -P benchmarks/torch_ops.py --sizes small --out $P/torch \
        >$P/torch_ops.log 2>&1
    timeout 100 python3 -P benchmarks/gemm_shapes.py >$P/gemm_shapes.log 2>&1
    OUT=$P/suite timeout 120 python3 -P benchmarks/suite.py --sweep \
        --family attention transpose softmax --budget 100 >$P/suite-sweep.log 2>&1
    python3 -P benchmarks/report.py $P/suite/suite.json >$P/sweep-tables.md 2>&1
    tar czf "$OUT/progress.tgz" -C $P .
    for f in ports fp8_bench torch_ops gemm_shapes suite-sweep; do
        echo "== $f"
        tail -30 "$P/$f.log"
    done
    ;;
ports)
    # ports.json and the table land in $OUT
    timeout 170 python3 -P benchmarks/ports.py "${@:2}" 2>&1 |
        tee "$OUT/ports.log"
    ;;
esac
