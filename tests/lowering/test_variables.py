"""Lowering: static values fold, and static-then-dynamic variables become
C++ variables declared at the right scope (SPEC section 3)."""

import kernels as k
import numpy as np
import pytest
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


def _acc_reference(tid, n, start=0):
    """What Python computes for unrolled_reuses_* (per thread): acc, i."""
    acc, i = [0.0] * 4, start
    for t in range(n):
        if t > 0:
            for i in range(4):
                if t + i > tid:
                    acc[i] = 1.0
        for c in range(2):
            i = 2 * c
            acc[i] += 1.0
    return acc, i


def _interpreted(kernel, n, size=8):
    out = np.zeros(size, np.float32)
    kernel.interpret[1, 8](out, n)
    return out


def test_a_range_constexpr_variable_reusing_a_run_time_name_is_one_variable():
    # ``i`` is a C++ variable (assigned in the run-time loop); the unrolled
    # loop inside a run-time branch gave it a new C++ name each iteration
    # (i, i_2, i_3) and declared only the last: NVRTC rejected the others
    lines = body(k.unrolled_reuses_a_run_time_name)
    assert not any("i_2" in s or "i_3" in s or "i_4" in s for s in lines)
    # no read sees what the branch leaves in ``i`` (each is after ``i = 2 * c``
    # in its block): no C++ variable at all, every use folded (issue 23)
    assert "int32_t i;" not in lines and not any(s.startswith("i = ") for s in lines)
    branch = lines.index("if (t > 0) {")
    assert lines[branch + 2] == "acc[0] = 1.0f;"
    # the unrolled loop's variable is still a compile-time value in its body
    assert "acc[3] = 1.0f;" in lines
    for n in (0, 1, 3):
        expected = [sum(_acc_reference(x, n)[0][::3]) for x in range(8)]
        np.testing.assert_array_equal(
            _interpreted(k.unrolled_reuses_a_run_time_name, n), expected
        )
    assert _interpreted(k.unrolled_reuses_a_run_time_name, 3).tolist() == [
        3,
        3,
        4,
        4,
        4,
        3,
        3,
        3,
    ]


def test_a_range_constexpr_variable_reusing_a_top_level_name():
    # the name holds 0 until the run-time loop runs: not a folded 2
    lines = body(k.unrolled_reuses_a_top_level_name)
    assert lines.count("int32_t i = 0;") == 1 and not any("i_2" in s for s in lines)
    for n in (0, 1, 3):
        expected = []
        for x in range(8):
            acc, i = _acc_reference(x, n)
            expected.append(acc[0] + acc[3] + i)
        np.testing.assert_array_equal(
            _interpreted(k.unrolled_reuses_a_top_level_name, n), expected
        )


def test_a_range_constexpr_variable_reusing_a_name_in_a_while_loop():
    lines = body(k.unrolled_in_a_while_loop)
    assert "int32_t i;" not in lines and not any("i_2" in s for s in lines)
    for n in (0, 1, 3):
        expected = [sum(_acc_reference(x, n)[0][::3]) for x in range(8)]
        np.testing.assert_array_equal(
            _interpreted(k.unrolled_in_a_while_loop, n), expected
        )


def test_a_range_constexpr_variable_read_after_run_time_control_flow():
    # after a run-time branch or loop the name holds what ran: the unrolled
    # loop's last value, or the value before it
    body(k.unrolled_variable_read_after)
    for n in (0, 1, 2, 3):
        acc, i, j = [0.0] * 4, 0, 0
        for t in range(n):
            if t % 2 == 1:
                for i in range(3):
                    acc[i] += 1.0
            acc[i] += 10.0
            for j in range(4):
                acc[j] += 100.0
        expected = [acc[0] + acc[3], acc[1] + acc[2], i, j] * 8
        np.testing.assert_array_equal(
            _interpreted(k.unrolled_variable_read_after, n, 32), expected
        )


def test_a_hoisted_name_bound_again_after_a_loop_over_it_is_one_variable():
    # the same mechanism without range_constexpr: 'i = t + 1' went to a C++
    # variable that was never declared (only the one of 'i = t + 2' was)
    lines = body(k.hoisted_name_reused_by_a_loop)
    assert lines.count("int32_t i;") == 1
    assert "i = t + 1;" in lines and "i = kdsl::add(t, 2);" in lines
    out = np.zeros(12, np.float32)
    k.hoisted_name_reused_by_a_loop.interpret[1, 8](out, 3)
    assert out.tolist() == [4.0] * 8 + [1.0] * 4


def _over_a_run_time_counter(n):
    s = 0.0
    for i in range(n):
        if i % 2 == 1:
            for i in range(3):
                s += 1.0
        s += i * 10.0
    return [s, 0, 0, 0]


def _in_one_arm(n):
    out, k = [0.0] * 4, 5
    for t in range(n):
        if t % 2 == 0:
            for k in range(2):
                out[1] = 1.0
        else:
            out[2] = k
    out[0] = k
    return out


def _run_time_loop_in_an_unrolled_body(n):
    k, s = 0, 0.0
    for t in range(n):
        for k in range(2):
            for u in range(t):
                s += k
                k = k + 1
    return [s, k, 0, 0]


def _in_an_unrolled_body(n):
    k, s = 7, 0.0
    for t in range(n):
        for k in range(3):
            s += k
            if t > 0:
                for k in range(2):
                    s += 100.0
            s += k * 10.0
    return [s, k, 0, 0]


@pytest.mark.parametrize(
    "kernel, python",
    [
        (k.unrolled_over_a_run_time_counter, _over_a_run_time_counter),
        (k.unrolled_in_one_arm, _in_one_arm),
        (k.run_time_loop_in_an_unrolled_body, _run_time_loop_in_an_unrolled_body),
        (k.unrolled_in_an_unrolled_body, _in_an_unrolled_body),
    ],
)
def test_an_unrolled_loop_assigns_a_name_run_time_control_flow_carries(kernel, python):
    # the values after the branch or loop are Python's (they were the
    # unrolled loop's last, or NVRTC rejected an undeclared variable)
    body(kernel)
    for n in range(4):
        out = np.zeros(4, np.float32)
        kernel.interpret[1, 1](out, n)
        np.testing.assert_array_equal(out, python(n))
