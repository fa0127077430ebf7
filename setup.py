"""The distribution's version is the policy pack's: PulumiPolicy.yaml's `version`, written only there."""

import re
from pathlib import Path

from setuptools import setup

text = (Path(__file__).resolve().parent / "PulumiPolicy.yaml").read_text()
version = re.search(r"^version:\s*['\"]?([^'\"\s]+)", text, re.MULTILINE)
if version is None:
    raise SystemExit("PulumiPolicy.yaml declares no version")
setup(version=version.group(1))
