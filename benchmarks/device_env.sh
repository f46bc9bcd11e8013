# Source this on the GPU machine (device tool) from the repo root:
#   . benchmarks/device_env.sh
# The machine's image has CuPy, numpy, ml_dtypes, jinja2, pytest, torch and
# triton but not libcst: its wheel travels in .whl/ (see the device README).
# kdsl is laid out under /tmp/kd exactly as `pip install .` would lay it out.
set -e
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --upgrade --target /tmp/site .whl/*.whl
rm -rf /tmp/kd && mkdir -p /tmp/kd
cp -r kdsl /tmp/kd/kdsl
cp -r transpile /tmp/kd/kdsl/transpile
cp -r runtime /tmp/kd/kdsl/runtime
cp -r templates /tmp/kd/kdsl/templates
export PYTHONPATH=/tmp/kd:/tmp/site
export KDSL_CACHE_DIR=/tmp/kdsl-cache
export PYTHONUNBUFFERED=1
set +e
# matplotlib for the benchmark plots, if the image lacks it: its wheels travel
# in .whl_mpl/ (carry it too; see benchmarks/gpu_session.sh).
if ! python3 -c "import matplotlib" 2>/dev/null && ls .whl_mpl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
        --upgrade --target /tmp/mpl .whl_mpl/*.whl
    export PYTHONPATH=$PYTHONPATH:/tmp/mpl
fi
