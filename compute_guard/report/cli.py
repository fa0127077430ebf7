"""``compute-guard report``: the pack's verdicts on a stack, and where its workloads land.

    pulumi preview --json > preview.json && compute-guard report preview.json
    pulumi stack export | compute-guard report --format markdown -

Exit codes: 0 no mandatory violation, 1 a mandatory violation, 2 the input or the configuration
cannot be read (the reason on stderr, never a traceback). The command line is compute_guard/cli.py's.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from compute_guard.exits import CLEAN, UNREADABLE, VIOLATION

LARGE = 1000  # resources: above this, say what is happening on stderr


def report(arguments: argparse.Namespace) -> int:
    """Run ``compute-guard report`` with its parsed arguments (compute_guard/cli.py parses them)."""
    try:
        return _report(arguments)
    except _Refused as error:
        print(f"compute-guard report: {error}", file=sys.stderr)
        return UNREADABLE


class _Refused(Exception):
    pass


def _report(arguments: argparse.Namespace) -> int:
    from .inputs import Unreadable, read, stack_config

    name = "standard input" if arguments.input == "-" else arguments.input
    try:
        data = sys.stdin.buffer.read() if arguments.input == "-" else Path(arguments.input).read_bytes()
    except OSError as error:
        raise _Refused(f"cannot read {name}: {error.strerror or error}") from None
    try:
        source = read(data, name)
    except Unreadable as error:
        raise _Refused(str(error)) from None
    policy_config = _policy_config(arguments.policy_pack_config)
    _known_policies(policy_config)
    stack = arguments.stack or source.stack
    if len(source.resources) > LARGE:
        print(f"compute-guard report: {len(source.resources)} resources of stack '{stack}'", file=sys.stderr)

    from compute_guard.testkit.analyzer import ConfigError

    from .model import build
    from .render import render

    try:
        report = build(source, policy_config, stack_config(Path.cwd(), stack),
                       progress=(lambda text: print(f"compute-guard report: {text}", file=sys.stderr))
                       if len(source.resources) > LARGE else None)
    except ConfigError as error:
        raise _Refused(f"the policy pack config is refused: {error}") from None
    form = arguments.format or ("table" if sys.stdout.isatty() and not arguments.output else "json")
    text = render(report, form, color=form == "table" and sys.stdout.isatty() and not arguments.output)
    if arguments.output:
        Path(arguments.output).write_text(text)
    else:
        sys.stdout.write(text)
    return VIOLATION if report.mandatory else CLEAN


def _known_policies(policy_config: dict[str, Any]) -> None:
    """Refuse a policy name the pack does not have, with a did-you-mean. The CLI lets one through: it validates
    the settings of the pack's own policies only and hands every name to the pack's Configure (pulumi v3.260.0,
    pkg/resource/analyzer/config.go, applyConfig), where no policy reads it, so a typo silently leaves the
    policy it meant at its default: here, at least, it is said."""
    import difflib

    from compute_guard.policies import BY_NAME
    from compute_guard.policies.adapters.findings import listed

    for name in policy_config:
        if name in BY_NAME or name in ("all", "environments"):
            continue
        close = difflib.get_close_matches(str(name), list(BY_NAME), n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"the pack's policies are {listed(BY_NAME)}"
        raise _Refused(f"the policy pack config names '{name}', which is not a policy of this pack; {hint}")


def _policy_config(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    try:
        config = json.loads(Path(path).read_text())
    except OSError as error:
        raise _Refused(f"cannot read the policy pack config {path}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise _Refused(f"the policy pack config {path} is not JSON ({error.msg} at line {error.lineno})") from None
    if not isinstance(config, dict):
        raise _Refused(f"the policy pack config {path} is not a JSON object")
    return config
