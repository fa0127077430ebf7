"""scripts/setup keeps an existing venv's interpreter: `python3 -m venv` over a venv made by another python3 (a
shell whose PATH has only /usr/bin, as the README-command tests give, after a requirements file changed) rewrote
its pyvenv.cfg and left it unable to import the standard library."""

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ("requirements.txt", "requirements-dev.txt", "pyproject.toml", "setup.py", "PulumiPolicy.yaml",
          "provider/requirements.txt")


def logging_tool(path: Path, log: Path) -> None:
    """A stand-in that records how it was called."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "{path.name} $*" >> {log}\n')
    path.chmod(0o755)


def checkout(tmp_path: Path) -> tuple[Path, Path]:
    work, log = tmp_path / "checkout", tmp_path / "calls.log"
    (work / "scripts").mkdir(parents=True)
    shutil.copy2(ROOT / "scripts" / "setup", work / "scripts" / "setup")
    for name in INPUTS:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(f"{name}\n")
    logging_tool(tmp_path / "python3", log)  # the shell's python3, which must not remake a venv that is there
    return work, log


def setup(work: Path, tmp_path: Path) -> str:
    done = subprocess.run([str(work / "scripts" / "setup")], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHON": str(tmp_path / "python3")})
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_changed_requirements_update_an_existing_venv_with_its_own_interpreter(tmp_path):
    work, log = checkout(tmp_path)
    for venv in ("venv", "provider/venv"):
        logging_tool(work / venv / "bin" / "python", log)
        logging_tool(work / venv / "bin" / "pip", log)
    said = setup(work, tmp_path)
    calls = log.read_text().splitlines()
    assert not [call for call in calls if call.startswith("python3 ")], calls  # no `python3 -m venv` over them
    assert sum(call.startswith("pip install") for call in calls) == 4, calls  # requirements, then -e ., twice
    assert "updating venv (its requirements changed)" in said


def test_a_missing_venv_is_made_with_the_python_it_is_given(tmp_path):
    work, log = checkout(tmp_path)
    done = subprocess.run([str(work / "scripts" / "setup")], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHON": str(tmp_path / "python3")})
    # the stand-in makes no venv, so the pip after it fails: what matters is that the given python was asked
    assert done.returncode != 0
    assert "python3 -m venv venv" in log.read_text().splitlines()
