"""scripts/test without ../shared beside the checkout (a clone in a bare temporary directory): it stopped only after
the whole setup, with 41 failures and 16 errors each for a missing file of ../shared. It now stops first, naming the
folder, and sets up nothing."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_checkout_without_shared_beside_it_stops_at_once_naming_it(tmp_path):
    work = tmp_path / "checkout"
    (work / "scripts").mkdir(parents=True)
    shutil.copy2(ROOT / "scripts" / "test", work / "scripts" / "test")
    (work / "scripts" / "setup").write_text("#!/bin/sh\ntouch setup-ran\n")  # must not be reached
    (work / "scripts" / "setup").chmod(0o755)
    done = subprocess.run([str(work / "scripts" / "test")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"no ../shared/third_party beside this checkout ({tmp_path}/shared)" in done.stderr
    assert not (work / "setup-ran").exists()
    # with the folder beside it, the script goes on to its setup
    (tmp_path / "shared" / "third_party").mkdir(parents=True)
    (work / "scripts" / "setup").write_text("#!/bin/sh\ntouch setup-ran\nexit 7\n")
    done = subprocess.run([str(work / "scripts" / "test")], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 7 and (work / "setup-ran").exists()
