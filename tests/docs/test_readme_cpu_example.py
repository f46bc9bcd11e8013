"""README's "Without a GPU" example runs as written, from the repository root."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_without_a_gpu_example_runs():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Without a GPU") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "interpret[" in code
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)
