"""The README's ``console`` blocks, run as written: each in an empty folder, each ``$`` line
through bash with this environment's ``jaxlint`` on PATH, its stdout compared with the
lines shown under it."""

import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT


def _blocks() -> list[list[tuple[str, str]]]:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    out = []
    for body in re.findall(r"```console\n(.*?)```", text, re.S):
        steps: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
        out.append([(cmd, "".join(x + "\n" for x in expected)) for cmd, expected in steps])
    return out


BLOCKS = _blocks()


def test_the_readme_has_console_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("block", BLOCKS, ids=[b[0][0][:40] for b in BLOCKS])
def test_readme_console_block(block, tmp_path):
    env = dict(os.environ, NO_COLOR="1", PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    env.pop("CI", None)
    for cmd, expected in block:
        p = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert p.stdout == expected, f"$ {cmd}\n{p.stderr}"
