# One device call for a session that changed code generation or the runtime:
# every GPU-marked test, then the launch and bandwidth benchmark.  Logs and
# bench.json land in $OUT.  On the device machine, from the repo root (with
# the libcst wheel in .whl/, see device_env.sh):
#   bash benchmarks/gpu_session.sh
. benchmarks/device_env.sh
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# -P: the repo root must not shadow the laid-out kdsl package in /tmp/kd
timeout 420 python3 -P -m pytest -q -p no:cacheprovider -m gpu -x tests \
    2>&1 | tee "$OUT/gpu-tests.log" | tail -25
timeout 150 python3 -P benchmarks/bench.py 2>&1 | tee "$OUT/bench.log" | tail -12
