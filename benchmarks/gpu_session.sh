# Device calls for a session that changed code generation or the runtime,
# from the repo root on the device machine (the libcst wheel in .whl/ and,
# for the plots, matplotlib's in .whl_mpl/: carry both; see device_env.sh):
#   bash benchmarks/gpu_session.sh tests   # every GPU-marked test (~5 min)
#   bash benchmarks/gpu_session.sh bench   # launch costs, then the workload table
# Logs, bench.json, suite.json and the plots land in $OUT.
. benchmarks/device_env.sh
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
case "${1:-tests}" in
tests)
    # -P: the repo root must not shadow the laid-out kdsl package in /tmp/kd
    timeout 560 python3 -P -m pytest -q -p no:cacheprovider -m gpu tests \
        "${@:2}" 2>&1 | tee "$OUT/gpu-tests.log" | tail -40
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
