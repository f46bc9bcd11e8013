"""A DSLError's traceback shows the user's frames, not kdsl's (issue 30,
item 1): the call that failed and the located kernel excerpt, with one line
of kdsl's saying frames were hidden; ``KDSL_TRACEBACK=1`` shows them all."""

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""\
    import kdsl
    from kdsl import Int32, Pointer, thread_idx

    D = kdsl.TypeVar("D", bound=kdsl.Float)


    @kdsl.kernel(dtypes=[kdsl.Float32])
    def bad(x: Pointer[D], n: Int32):
        x[thread_idx.x] = x[0] & 1


    def users_helper():
        return {call}


    users_helper()
    """)

CALLS = {
    "source": 'bad.dispatch("f32").source',
    "dispatch": 'bad.dispatch("f16")',
    "interpret": "bad.interpret[1, 1](__import__('numpy').zeros(1, 'float32'), 1)",
    "decorate": 'kdsl.kernel(dtypes=["f99"])(bad.fn)',
    "annotation": "kdsl.Constexpr[str]",
}


def _run(tmp_path, call, full=False):
    path = tmp_path / "user_script.py"
    path.write_text(SCRIPT.format(call=call))
    env = {k: v for k, v in os.environ.items() if k != "KDSL_TRACEBACK"}
    if full:
        env["KDSL_TRACEBACK"] = "1"
    result = subprocess.run(
        [sys.executable, str(path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    return result.stderr


def _frames(stderr):
    return [line.strip() for line in stderr.splitlines() if line.startswith("  File ")]


@pytest.mark.parametrize("what", sorted(CALLS))
def test_only_the_users_frames_and_one_line_of_kdsls(tmp_path, what):
    stderr = _run(tmp_path, CALLS[what])
    frames = _frames(stderr)
    assert len(frames) == 3, stderr
    assert frames[0].endswith("line 16, in <module>"), stderr
    assert frames[1].endswith("line 13, in users_helper"), stderr
    lines = stderr.splitlines()
    raised = lines[lines.index("  " + frames[2]) + 1]
    # the one line of kdsl's: where the hidden frames are one variable away
    assert "KDSL_TRACEBACK=1" in raised, stderr
    assert "During handling" not in stderr
    assert "error[E" in stderr.splitlines()[-1] or "error[E" in stderr


def test_the_located_kernel_excerpt_is_kept(tmp_path):
    stderr = _run(tmp_path, CALLS["source"])
    assert "user_script.py:9:23: error[E101]" in stderr
    assert "        x[thread_idx.x] = x[0] & 1\n" in stderr
    assert "in instance bad__f32" in stderr


def test_kdsl_traceback_1_shows_every_frame(tmp_path):
    stderr = _run(tmp_path, CALLS["source"], full=True)
    frames = _frames(stderr)
    assert len(frames) > 8, stderr
    assert any("pipeline.py" in f for f in frames), stderr


def test_a_dispatch_error_points_at_the_call_not_the_def(tmp_path):
    # issue 30, item 9: the unsupported dtype is the call's fault
    stderr = _run(tmp_path, CALLS["dispatch"])
    assert "user_script.py:13:12: error[E403]" in stderr, stderr
    assert '        return bad.dispatch("f16")\n' in stderr
