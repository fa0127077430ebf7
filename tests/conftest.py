"""Tests import the pack, the component and the testkit from the repository root.

An internal error in a policy is raised, not turned into the fail-closed violation (in the pack
processes the tests start too, which inherit the environment): a swallowed crash can never pass
as a clean result. tests/test_fail_closed.py turns it off to test the guard itself.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

os.environ["COMPUTE_GUARD_STRICT"] = "1"
