"""Lowering: static values fold, and static-then-dynamic variables become
C++ variables declared at the right scope (SPEC section 3)."""

import kernels as k
from kdsl.runtime.nvrtc import compile_to_cubin


def body(kernel, *args, **kwargs):
    inst = kernel.dispatch(*(args or kernel.combinations()[0]), **kwargs)
    compile_to_cubin(inst.source, inst.name)  # every case is valid CUDA too
    src = inst.source
    code = src[src.index('extern "C"') :]
    return [
        line.strip() for line in code.splitlines() if not line.strip().startswith("//")
    ]


def test_static_value_assigned_in_a_branch_is_declared_before_it():
    lines = body(k.static_then_branch)
    decl = lines.index("float acc = 0.0f;")
    branch = lines.index("if (i < n) {")
    assert decl < branch
    assert "acc = x[i];" in lines[branch:]
    assert lines.count("float acc = 0.0f;") == 1  # declared once, then assigned
    assert "out[i] = acc;" in lines


def test_loop_carried_value_is_declared_before_the_loop():
    lines = body(k.loop_carried)
    decl = lines.index("float acc = 0.0f;")
    loop = next(i for i, s in enumerate(lines) if s.startswith("for (int32_t k = 0;"))
    assert decl < loop
    assert "acc = acc + x[k];" in lines
    assert "out[0] = acc;" in lines


def test_name_first_assigned_in_both_branches_is_hoisted():
    lines = body(k.first_assigned_in_branches)
    assert lines.index("float v;") < lines.index("if (i < n) {")
    assert "v = x[i];" in lines and "v = 0.0f;" in lines
    assert "out[i] = v;" in lines


def test_branch_local_name_is_declared_inside_the_branch():
    lines = body(k.branch_local)
    branch = lines.index("if (i < n) {")
    decl = next(i for i, s in enumerate(lines) if s.startswith("float t = "))
    assert decl > branch


def test_static_values_fold_and_static_if_emits_only_the_taken_branch():
    taken = body(k.static_folds, "f32", FLAG=True)
    assert "out[0] = 6.5f;" in taken  # (3 * 4 + 1) / 2, folded
    assert not any("-1" in s for s in taken)
    assert "out[1] = 0.0f;" in taken and "out[2] = 1.0f;" in taken  # unrolled
    other = body(k.static_folds, "f32", FLAG=False)
    assert "out[0] = -1.0f;" in other and "out[0] = 6.5f;" not in other


def test_static_counter_updated_in_a_while_loop_becomes_a_variable():
    lines = body(k.while_counter)
    assert lines.index("int32_t k = 0;") < lines.index("while (k < n) {")
    assert "k = kdsl::add(k, 1);" in lines


def test_a_literal_takes_the_variables_type():
    lines = body(k.literal_takes_type)
    assert "acc = 2.0f;" in lines
    assert "acc = acc + 1.0f;" in lines


def test_instance_names_are_readable_and_deterministic():
    inst = k.static_folds.dispatch("float32", FLAG=False)
    assert inst.name == "static_folds__f32__false"
    assert inst.dtypes == (k.kdsl.Float32,)
    assert inst.constexprs == {"FLAG": False}


def test_a_run_time_step_is_allowed_and_keeps_pythons_sign_rule():
    lines = body(k.grid_stride)
    step = next(s for s in lines if s.startswith("int32_t i_step = "))
    assert "blockDim.x" in step and "gridDim.x" in step
    loop = next(s for s in lines if s.startswith("for (int32_t i = "))
    assert "kdsl::in_range(i, n, i_step)" in loop and "i += i_step" in loop


def test_a_name_local_to_each_arm_is_declared_in_each_arm():
    # it was declared in the first arm only: NVRTC rejected the else arm
    lines = body(k.local_in_both_arms)
    assert lines.count("float a = x[0];") == 1
    assert lines.count("float a = x[1];") == 1
