"""The runtime's errors: launching, the CPU interpreter and NVRTC.

The classes derive from :class:`~kdsl.transpile.errors.DSLError`; their
catalog entries join :data:`~kdsl.transpile.errors.CATALOG` through
:func:`~kdsl.transpile.errors.register` when this module is imported, so the
runtime raises them with ``error("launch-...")`` like any other (the compiler
never imports the runtime).
"""

from __future__ import annotations

from kdsl.transpile.errors import DSLError, error, register


class LaunchError(DSLError, TypeError):
    """A launch argument or configuration is wrong; nothing was launched."""

    code = "E406"


class NoDeviceError(DSLError, RuntimeError):
    """A launch found no usable CUDA GPU (or no CuPy); nothing was launched.
    ``kernel.interpret[grid, block](...)`` runs the kernel on the CPU."""

    code = "E503"


class InterpretError(DSLError, RuntimeError):
    """The CPU interpreter caught a fault the GPU would not report (an index
    out of bounds, a divergent barrier or shuffle, a data race)."""

    code = "E407"


class NVRTCError(DSLError):
    """NVRTC rejected generated code; ``.log`` is NVRTC's own log."""

    code = "E502"
    log = ""


class DeviceAssertionError(DSLError, AssertionError):
    """An ``assert`` in a kernel failed: in the CPU interpreter, or on the
    GPU in a debug build (read from the launch's assertion record after it).
    Located at the assert; ``thread`` and ``block`` are the indices of the
    thread that failed (on the GPU, the first of them to record it)."""

    code = "E460"
    thread: tuple = ()
    block: tuple = ()


def device_assertion(span, message, thread, block) -> DeviceAssertionError:
    """The error of the assert at ``span`` failed in ``thread`` of ``block``."""
    err = error(
        "device-assertion", thread=f"thread {thread} of block {block}", message=message
    )
    return _in_thread(err, span, thread, block)


def _in_thread(err, span, thread, block):
    """``err`` of ``thread`` of ``block``, located at ``span`` (with its line)."""
    import linecache

    err.thread, err.block = tuple(thread), tuple(block)
    if span is not None:
        line = linecache.getline(span.path, span.line).rstrip("\n") or None
        err.locate(span, line)
    return err


class AssumptionError(DeviceAssertionError):
    """A ``kdsl.assume(cond)`` was false in the CPU interpreter (which
    checks every assumption): located at the call, naming the values its
    condition reads.  On the GPU a debug build checks it like an ``assert``
    and raises :class:`DeviceAssertionError`."""

    code = "E902"


def false_assumption(span, text, values, thread, block) -> AssumptionError:
    """The error of the assumption ``text`` at ``span``, false in ``thread``
    of ``block`` with ``values`` (``(name, value)`` pairs)."""
    shown = ", ".join(f"{name} = {value}" for name, value in values)
    err = error(
        "interpret-assume-false",
        text=text,
        values=f": {shown}" if shown else "",
        thread=f"thread {thread} of block {block}",
    )
    return _in_thread(err, span, thread, block)


def overflow(span, op, values, t, thread, block) -> AssumptionError:
    """The error of a signed ``op`` (of ``values``, one: a negation) whose
    exact result leaves type ``t`` in a ``no_overflow=True`` function."""
    if len(values) == 1:
        text, exact = f"-({values[0]})", -values[0]
    else:
        a, b = values
        exact = a + b if op == "+" else a - b if op == "-" else a * b
        text = f"{a} {op} {b}"
    err = error(
        "interpret-overflow",
        text=text,
        exact=exact,
        type=t.__name__,
        thread=f"thread {thread} of block {block}",
    )
    return _in_thread(err, span, thread, block)


register(
    # E4xx: launching (kernel[grid, block](...), kdsl.autotune)
    (
        "launch-array-dtype",
        "E406",
        LaunchError,
        "parameter '{param}' must hold {type}, got {got}; convert the array first",
    ),
    (
        "launch-struct-argument",
        "E930",
        LaunchError,
        "parameter '{param}' takes a {struct} by value: pass {struct}(...) or a "
        "numpy scalar of {struct}.dtype, got {got}",
    ),
    (
        "launch-syntax",
        "E419",
        LaunchError,
        "launch {name} as {how}[grid, block](...)",
    ),
    (
        "launch-dims",
        "E420",
        LaunchError,
        "{dims} must be a positive int or a tuple of up to 3, got {value}",
    ),
    (
        "launch-grid-limit",
        "E421",
        LaunchError,
        "{dims} {grid}: {axis} = {n} is over CUDA's limit {limit}",
    ),
    (
        "launch-block-threads",
        "E422",
        LaunchError,
        "block {block} of '{kernel}' has {threads} threads; {where} allows at "
        "most {limit}",
    ),
    (
        "launch-block-axis",
        "E423",
        LaunchError,
        "block {block} of '{kernel}' is {n} threads in {axis}; {where} allows at "
        "most {limit}",
    ),
    (
        "launch-stream",
        "E424",
        LaunchError,
        "stream= must be a CuPy or PyTorch stream, got {got}",
    ),
    (
        "launch-scalar-range",
        "E425",
        LaunchError,
        "parameter '{param}' is {type}: {value} is outside {bounds}",
    ),
    (
        "launch-scalar-dynamic",
        "E426",
        LaunchError,
        "parameter '{param}' got a run-time kdsl value; pass a Python number",
    ),
    (
        "launch-scalar-type",
        "E427",
        LaunchError,
        "parameter '{param}' is {type}, got {value}; pass a Python {kind}",
    ),
    (
        "launch-scalar-unpackable",
        "E428",
        LaunchError,
        "parameter '{param}': {type} cannot be passed at launch; pass it in an "
        "array",
    ),
    (
        "launch-array-unreadable",
        "E429",
        LaunchError,
        "parameter '{param}': cannot read it as a device array ({type}): {detail}",
    ),
    (
        "launch-not-an-array",
        "E430",
        LaunchError,
        "parameter '{param}' needs {accepted}, got {got}",
    ),
    (
        "launch-host-array",
        "E431",
        LaunchError,
        "parameter '{param}' is a host ({library}) array; kdsl kernels need device "
        "memory (e.g. cupy.asarray(...))",
    ),
    (
        "launch-array-device",
        "E432",
        LaunchError,
        "parameter '{param}' lives on device {got}, the launch is on device "
        "{device}; copy it there first",
    ),
    (
        "launch-array-contiguous",
        "E433",
        LaunchError,
        "parameter '{param}' is a Pointer and needs a contiguous array; pass "
        ".copy() or declare it Array[{type}, ndim]",
    ),
    (
        "launch-array-alignment",
        "E434",
        LaunchError,
        "parameter '{param}' is read through .vec(N) or .view(T): its base address must be "
        "{align}-byte aligned, got {address}; pass an aligned array (a fresh one is)",
    ),
    (
        "launch-array-ndim",
        "E435",
        LaunchError,
        "parameter '{param}' is Array[{type}, {ndim}], got {got} dimensions",
    ),
    (
        "launch-array-strides",
        "E436",
        LaunchError,
        "parameter '{param}' has byte strides that are not a multiple of the "
        "element size; pass a copy",
    ),
    (
        "launch-vector-parameter",
        "E437",
        LaunchError,
        "parameter '{param}' of '{kernel}' is a pointer to {vtype}, which cannot "
        "be launched: declare Pointer[{dtype}] and use .vec({lanes}) in the kernel",
    ),
    (
        "launch-dtype-unknown",
        "E438",
        LaunchError,
        "cannot tell the dtype {typevar} of '{kernel}' from parameter '{param}' "
        "({got}); pass an array or use {kernel}.dispatch(dtype)[grid, block]",
    ),
    (
        "launch-dtype-no-carrier",
        "E439",
        LaunchError,
        "'{kernel}' has no argument that carries dtype {typevar}; use "
        "{kernel}.dispatch(dtype)[grid, block]",
    ),
    (
        "launch-instance-constexprs",
        "E440",
        LaunchError,
        "instance {instance} has its constexprs fixed; launch it without them",
    ),
    (
        "launch-arg-count",
        "E441",
        LaunchError,
        "'{kernel}' takes {n} arguments ({names}), got {got}; constexprs go by "
        "keyword",
    ),
    (
        "autotune-order",
        "E442",
        LaunchError,
        "@kdsl.autotune goes above @kdsl.kernel, got {got}",
    ),
    (
        "autotune-configs",
        "E443",
        LaunchError,
        "autotune of '{kernel}' needs a non-empty list of kdsl.Config",
    ),
    (
        "autotune-config-name",
        "E444",
        LaunchError,
        "{config} names no constexpr of '{kernel}': {names}",
    ),
    (
        "autotune-key",
        "E445",
        LaunchError,
        "autotune of '{kernel}': no argument '{name}'; key= and restore= name "
        "run-time arguments ({params})",
    ),
    (
        "autotune-untuned",
        "E446",
        LaunchError,
        "'{kernel}' has not been tuned for these arguments yet; launch it once",
    ),
    (
        "autotune-failed",
        "E447",
        LaunchError,
        "autotune of '{kernel}': every configuration failed\n{table}",
    ),
    (
        "autotune-prune",
        "E465",
        LaunchError,
        "autotune of '{kernel}': prune= takes a function prune(configs, args) -> "
        "configs, got a {got}",
    ),
    (
        "autotune-prune-result",
        "E466",
        LaunchError,
        "autotune of '{kernel}': prune returned {got}, which is not one of the "
        "configurations ({configs}); return some of the configs it is given",
    ),
    (
        "autotune-pruned-all",
        "E467",
        LaunchError,
        "autotune of '{kernel}': prune kept no configuration for these "
        "arguments; keep at least one",
    ),
    (
        "autotune-memory",
        "E468",
        LaunchError,
        "autotune of '{kernel}' needs {size} bytes of free device memory to "
        "search: a copy of the arrays it writes ({names}) and {flush} bytes to "
        "flush the L2 cache; free some, pass restore=[] if a launch does not "
        "read what those arrays hold, or pin a configuration",
    ),
    (
        "autotune-counts",
        "E469",
        LaunchError,
        "autotune of '{kernel}': warmup= takes a whole number from 0 and reps= "
        "one from 1, got warmup={warmup!r}, reps={reps!r}",
    ),
    (
        "launch-shared-mem-value",
        "E470",
        LaunchError,
        "shared_mem= is the dynamic shared memory of each block in bytes: pass a "
        "non-negative int, got {got}",
    ),
    (
        "launch-shared-mem-limit",
        "E471",
        LaunchError,
        "'{kernel}' asks for shared_mem={shared_mem} bytes; {where} allows it at "
        "most {limit} bytes of dynamic shared memory ({total} a block, less "
        "{static} of static shared arrays): pass a smaller shared_mem=",
    ),
    (
        "launch-bounds-exceeded",
        "E472",
        LaunchError,
        "block {block} of '{kernel}' has {threads} threads, more than its "
        "launch_bounds allow ({bound}): launch at most {bound} threads a block or "
        "raise launch_bounds",
    ),
    (
        "launch-arch",
        "E361",
        LaunchError,
        "'{kernel}' calls {callee}, an sm_90a (Hopper) instruction, so it runs "
        "only on a GPU of compute capability 9.0 (H100, H200); {where} is "
        "{arch}: use the mma.sync path (kdsl.mma_m16n8k16 …) there, or "
        "kernel.interpret[...] where the built-in has CPU semantics",
    ),
    # E4xx: the CPU interpreter
    (
        "interpret-gpu-only",
        "E362",
        InterpretError,
        "{callee}() runs only on the GPU (sm_90a): the interpreter does not "
        "model {unmodelled}; run the instance on an H100/H200 (the interpreter "
        "runs wgmma on 128-byte-swizzled tiles of dynamic shared views)",
    ),
    (
        "interpret-tensor-map",
        "E836",
        InterpretError,
        "'{kernel}' takes the tensor map '{param}': TMA runs only on the GPU "
        "(sm_90a); the interpreter does not model tensor maps, mbarriers or TMA "
        "copies (their waits need warps that run concurrently)",
    ),
    (
        "tensor-map-array",
        "E841",
        LaunchError,
        "kdsl.tensor_map(array, box=...) describes a 2-d device array (CuPy, "
        "PyTorch CUDA or __cuda_array_interface__); got {got}{detail}",
    ),
    (
        "tensor-map-dtype",
        "E842",
        LaunchError,
        "kdsl.tensor_map: TMA copies elements of {takes}; got {got}",
    ),
    (
        "tensor-map-box",
        "E843",
        LaunchError,
        "kdsl.tensor_map(array, box=(rows, columns), swizzle=128) needs {why}: "
        "box 1 … 256 elements along each dimension (Python ints), a box row a "
        "multiple of 16 bytes and no wider than the swizzle (128, 64, 32 or 0 "
        "bytes); got {got}",
    ),
    (
        "tensor-map-layout",
        "E844",
        LaunchError,
        "kdsl.tensor_map needs a row-major array: contiguous columns, rows a "
        "multiple of 16 bytes apart (below 2^40) and a 16-byte aligned start; "
        "this array has {got} (copy it: array.copy())",
    ),
    (
        "tensor-map-driver",
        "E845",
        NoDeviceError,
        "kdsl.tensor_map builds the map with the CUDA driver "
        "(cuTensorMapEncodeTiled, through the cuda-bindings package): {detail}; "
        "transpiling and compiling a TMA kernel need neither",
    ),
    (
        "launch-tensor-map",
        "E846",
        LaunchError,
        "parameter '{param}' is a kdsl.TensorMap: pass a map built by "
        "kdsl.tensor_map(array, box=(rows, columns)), got {got}",
    ),
    (
        "interpret-partial-warp",
        "E360",
        InterpretError,
        "{callee}() is a warp instruction all 32 lanes execute together "
        "(.aligned), but lane {lane} of {thread}'s warp {state}",
    ),
    (
        "interpret-out-of-bounds",
        "E407",
        InterpretError,
        "out-of-bounds {access} by {thread}",
    ),
    (
        "interpret-divergent",
        "E448",
        InterpretError,
        "{callee}() is not reached by {thread}, which is still running: {rule}",
    ),
    (
        "interpret-lane-gone",
        "E449",
        InterpretError,
        "{callee}() in {thread} reads lane {lane}, which is not running (it "
        "returned, or is beyond the block)",
    ),
    (
        "interpret-data-race",
        "E450",
        InterpretError,
        "data race on shared array {array}[{index}]: {thread} {verb} it and "
        "{other} {other_verb} it, with no syncthreads() between",
    ),
    (
        "interpret-pointer-misaligned",
        "E900",
        InterpretError,
        "'{pointer}' viewed as {elements} by {thread} does not start on a whole "
        "one: the GPU loads and stores an element only at a multiple of its "
        "size; move the pointer by a whole number of them",
    ),
    (
        "interpret-pointer-allocations",
        "E901",
        InterpretError,
        "'{op}' of pointers into two allocations ({lhs} and {rhs}) by {thread}: "
        "C++ defines it only for two pointers into one array",
    ),
    (
        "interpret-assume-false",
        "E902",
        AssumptionError,
        "{text} is false{values} (in {thread}); the kernel's code after it "
        "counts on it",
    ),
    (
        "interpret-overflow",
        "E903",
        AssumptionError,
        "{text} is {exact}, outside {type} (in {thread}): the function is "
        "compiled with no_overflow=True, which states that its signed + - * "
        "never overflow",
    ),
    (
        "interpret-pointer-diverged",
        "E722",
        InterpretError,
        "'{name}' is assigned {new} here while {thread}, which does not run "
        "this assignment, may still use it as {old}: the interpreter runs one "
        "array per pointer variable for all threads, so threads that choose "
        "different arrays (a branch on the thread or block index) run on the "
        "GPU only; choose the array in a branch every thread takes alike",
    ),
    (
        "interpret-no-progress",
        "E451",
        InterpretError,
        "this loop makes no progress: its {threads} running thread(s) go in "
        "lock-step in the interpreter, so one waiting for another to move on (a "
        "spin lock) waits for ever; run spin locks on the GPU",
    ),
    # E456-E459: grid-wide sync (kdsl.grid_sync) in the interpreter and at launch
    (
        "interpret-grid-too-large",
        "E456",
        InterpretError,
        "'{instance}' calls kdsl.grid_sync(), so the interpreter runs its whole "
        "grid as one lock-step batch: grid {grid} of block {block} is {threads} "
        "threads, over the interpreter's limit of {limit}; interpret a smaller "
        "grid (a grid-stride loop gives each thread more elements)",
    ),
    (
        "interpret-grid-sync-returned",
        "E457",
        InterpretError,
        "{callee}() is not reached by {thread}, which returned: each block's "
        "thread (0, 0, 0) waits at the grid barrier for its whole block, so the "
        "GPU would wait for ever; let that thread return only after the last "
        "grid_sync()",
    ),
    (
        "launch-grid-not-resident",
        "E458",
        LaunchError,
        "'{kernel}' calls kdsl.grid_sync(), so all {blocks} blocks of grid {grid} "
        "must be resident on device {device} at once; with block {block} and "
        "{shared_mem} bytes of dynamic shared memory at most {limit} fit "
        "({per_sm} per multiprocessor × {sms}); launch at most {limit} blocks "
        "(a grid-stride loop gives each thread more elements)",
    ),
    (
        "launch-not-cooperative",
        "E459",
        LaunchError,
        "'{kernel}' calls kdsl.grid_sync(), which needs a cooperative launch; "
        "device {device} cannot launch cooperatively (use a launch per step)",
    ),
    (
        "interpret-mask-self",
        "E452",
        InterpretError,
        "{callee}() in {thread} passes mask {mask}, which leaves out its own lane "
        "{lane}: CUDA requires the calling lane in its mask",
    ),
    (
        "interpret-mask-lane-gone",
        "E453",
        InterpretError,
        "{callee}() in {thread} names lane {lane} in its mask {mask}, but that "
        "lane {state}: name only lanes that take part (on the GPU this is "
        "undefined)",
    ),
    (
        "interpret-mask-mismatch",
        "E454",
        InterpretError,
        "{callee}() in {thread} passes mask {mask}, but {other}, which it names, "
        "passes {other_mask}: lanes that name each other must pass the same mask",
    ),
    (
        "interpret-lane-outside-mask",
        "E455",
        InterpretError,
        "{callee}() in {thread} reads lane {lane}, which is not in its mask {mask} "
        "(on the GPU the value is undefined)",
    ),
    # E485-E489: optional pointers
    (
        "dispatch-optional",
        "E485",
        LaunchError,
        "kernel '{kernel}': dispatch({param}=...) takes None only (the instance "
        "without '{param}'); leave '{param}' out for the instance with it",
    ),
    (
        "launch-optional-mismatch",
        "E486",
        LaunchError,
        "instance {instance}: parameter '{param}' {was}; launch the kernel "
        "itself (kernel[grid, block]) to pick the instance from the arguments",
    ),
    # E480: an install without the CUDA packages (kdsl[cuda])
    (
        "cuda-extra-missing",
        "E480",
        NoDeviceError,
        "{task} needs {missing}, which kdsl installs with its 'cuda' extra: pip "
        "install 'kdsl[cuda]' (transpiling, golden tests and the CPU interpreter "
        "work without it: kernel.interpret[grid, block](...) or KDSL_INTERPRET=1)",
    ),
    # E461-E464, E474-E484: reliability (launch checks and interpreter limits)
    (
        "launch-read-only",
        "E461",
        LaunchError,
        "parameter '{param}' is written by the kernel, but the array passed is "
        "read-only (numpy's writeable flag is off); pass a writable array, e.g. "
        ".copy()",
    ),
    (
        "launch-float-range",
        "E462",
        LaunchError,
        "parameter '{param}' is {type}: {value} is outside its finite range "
        "(largest {largest}) and would become infinity; pass float('inf') for "
        "an infinity",
    ),
    (
        "interpret-thread-limit",
        "E463",
        InterpretError,
        "the interpreter would run {threads} threads (grid {grid}, block {block}), "
        "more than its limit of {cap}; launch a smaller grid, or raise the limit "
        "with the environment variable {env}",
    ),
    (
        "interpret-loop-wrapped",
        "E464",
        InterpretError,
        "the loop in {thread} came back to the same state after {iterations} "
        "iterations: its counter wrapped around without ending it, so it would "
        "never end",
    ),
    (
        "interpret-vector-pointer",
        "E478",
        InterpretError,
        "parameter '{param}' is a Pointer[{type}], which the interpreter does not "
        "run; declare it Pointer[{scalar}] and read it as vectors with "
        "{param}.vec({lanes})",
    ),
    (
        "interpret-step-budget",
        "E477",
        InterpretError,
        "the launch ran more loop iterations than the interpreter's budget of "
        "{cap}, in the loop at line {line}: a loop that may never end (a counter "
        "that wraps around before its bound, a condition that stays true); if "
        "it is meant to run this long, raise the budget with {env}=<iterations> "
        "(0: no budget)",
    ),
    (
        "launch-array-element-stride",
        "E474",
        LaunchError,
        "parameter '{param}': the array's strides {strides} (bytes) are not whole "
        "{type} elements of {itemsize} bytes (a field of a structured array?); "
        "pass a copy (np.ascontiguousarray)",
    ),
    # E815-E829: reliability of the launch path (issue 16)
    (
        "launch-array-overlap",
        "E815",
        LaunchError,
        "parameter '{param}' is written by the kernel, but the array passed has "
        "strides {strides}: a zero stride makes several of its elements one "
        "memory location (a broadcast view), and threads writing them would "
        "race; pass a copy",
    ),
    (
        "launch-array-misaligned",
        "E816",
        LaunchError,
        "parameter '{param}' starts at address {address}, which is not a multiple "
        "of the {align}-byte alignment of its {type} elements: the GPU cannot "
        "load or store them there; pass a copy (a fresh array is aligned)",
    ),
    # E46x: debug builds
    (
        "device-assertion",
        "E460",
        DeviceAssertionError,
        "assertion failed in {thread}: {message}",
    ),
    # E5xx: NVRTC
    (
        "cuda-headers",
        "E501",
        DSLError,
        "CUDA headers not found in {searched}: pip install nvidia-cuda-runtime "
        "(kdsl's dependency)",
    ),
    # E64x: host backward functions
    (
        "host-backward-not-function",
        "E640",
        DSLError,
        "kdsl.host_backward takes the function that computes a kernel's "
        "gradient, got {got}",
    ),
    # E53x: kdsl.torch (PyTorch operators)
    (
        "torch-no-backward",
        "E530",
        DSLError,
        "operator '{op}' has no backward: it launched {kernels}, none paired "
        "with a backward kernel (@kdsl.kernel(backward=...))",
    ),
    (
        "torch-several-backward",
        "E531",
        DSLError,
        "operator '{op}' launched several kernels with a backward ({kernels}): "
        "make one operator per kernel, or pair only one",
    ),
    (
        "torch-intermediate",
        "E532",
        DSLError,
        "operator '{op}': '{param}' of '{kernel}' is a tensor that is neither an "
        "input nor an output of the operator, so its backward cannot have it: "
        "return it too, or compute it in the backward kernel",
    ),
    (
        "torch-backward-unmatched",
        "E533",
        DSLError,
        "backward kernel '{backward}': parameter '{param}' matches no parameter of "
        "'{kernel}' ({params}): name it as one of them, or grad_<name> for the "
        "gradient of one",
    ),
    (
        "torch-backward-argument",
        "E534",
        DSLError,
        "operator '{op}': '{param}' of '{kernel}' is a {got}; a backward kernel "
        "can be given tensors, ints and floats",
    ),
    (
        "torch-overwrites-unknown",
        "E535",
        DSLError,
        "operator '{op}': overwrites names {names}, which backward kernel "
        "'{backward}' does not compute (its gradients: {computed})",
    ),
    (
        "torch-plan-unknown",
        "E537",
        DSLError,
        "a kdsl operator's backward names a plan of kernel '{kernel}' that this "
        "process cannot rebuild ({why}); a graph compiled by another process "
        "(Inductor's cache) needs its kernels at module level, with the same "
        "code: define them there, or clear the cache (TORCHINDUCTOR_CACHE_DIR)",
    ),
    (
        "torch-mixed-devices",
        "E536",
        DSLError,
        "a kdsl operator on CPU tensors was given a tensor on {device}: keep "
        "every tensor on one device",
    ),
    ("nvrtc-rejected", "E502", NVRTCError, "NVRTC rejected {subject}: {detail}"),
    # E503-E519: what a new user meets at dispatch and launch
    (
        "launch-block-mismatch",
        "E506",
        LaunchError,
        "kernel '{kernel}' is declared with block=\"{param}\": a block has "
        "{param} = {value} threads, got block {block} ({threads} threads); launch "
        "it as {kernel}[grid](...) and the block follows {param}",
    ),
    (
        "launch-block-undeclared",
        "E507",
        LaunchError,
        "kernel '{kernel}' declares no block size: launch it as "
        '{how}[grid, block](...), or declare one with @kdsl.kernel(block="BLOCK") '
        "(the Constexpr[int] parameter the block follows) or "
        "@kdsl.kernel(block=256) to launch it as {how}[grid](...)",
    ),
    (
        "dispatch-extra-dtype",
        "E505",
        LaunchError,
        "dispatch() of '{kernel}' got the dtype {dtype} where {goes}: '{kernel}' "
        "has {has}; {fix}",
    ),
    (
        "launch-no-gpu",
        "E503",
        NoDeviceError,
        "kernel '{kernel}' cannot launch: no usable CUDA GPU ({detail}); run it on "
        "the CPU with {name}.interpret[grid, block](...), or set KDSL_INTERPRET=1 "
        "to run every launch there",
    ),
    (
        "kernel-called",
        "E504",
        LaunchError,
        "{subject} is launched, not called: write {how}[grid, block](...) with "
        "grid the number of blocks and block the threads per block, e.g. "
        "{how}[(n + 255) // 256, 256](...)",
    ),
    (
        "autotune-called",
        "E721",
        LaunchError,
        "autotuned kernel '{kernel}' is launched, not called: write "
        "{how}[grid, block](...), grid and block numbers or functions of a "
        "config's constexprs, e.g. {how}[lambda m: (n + m['BLOCK'] - 1) // "
        "m['BLOCK'], lambda m: m['BLOCK']](...){tied}",
    ),
    (
        "interpret-deadlock",
        "E762",
        InterpretError,
        "{callee}() waits forever: {waiting}; no rank can run on to raise the "
        "signal{note}",
    ),
    (
        "interpret-peer-address",
        "E763",
        InterpretError,
        "{callee}() in {thread} got the address {address:#x}, which is not where an "
        "array of {type} that a launch of {ranks} was given starts: in the "
        "interpreter a peer address is that of an array some rank's launch takes "
        "(e.g. its array.ctypes.data){note}",
    ),
    (
        "interpret-peer-diverged",
        "E764",
        InterpretError,
        "{callee}() in {thread} got the address {address:#x} while {other} got "
        "{other_address:#x}: the interpreter runs one array per pointer for all "
        "threads, so threads that choose different peers run on the GPU only; "
        "choose the peer in a loop every thread runs alike",
    ),
)
