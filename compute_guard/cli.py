"""The ``compute-guard`` command.

    compute-guard report [--format ...] INPUT    the pack's verdicts on a stack and its pools (the
                                                 ``report`` extra; compute_guard/report/cli.py)
    compute-guard provider DIR                   write the ComputeCluster component provider for programs
                                                 in other languages (compute_guard/component/provider.py)

Exit codes: 0 done (no mandatory violation), 1 a mandatory violation, 2 the input, the configuration
or the environment is refused (the reason on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

from compute_guard.exits import CLEAN, UNREADABLE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="compute-guard",
                                     description="compute-guard: compute pools and the workloads placed on them")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="judge a stack with the pack and draw its pools",
                                 description="Judge a stack with the compute-guard policies and show where its "
                                             "workloads land, how full each pool is at maxSize, and every finding.")
    report.add_argument("input", help="`pulumi preview --json` output, `pulumi stack export` output or a checkpoint "
                                      "(plain, gzip or zstd); - for standard input")
    report.add_argument("--format", choices=("table", "markdown", "json", "sarif", "html"), default=None,
                        help="table (the default on a terminal), markdown, json (the default otherwise), sarif, html")
    report.add_argument("--policy-pack-config", metavar="FILE",
                        help="the policy pack config file passed to `pulumi preview --policy-pack-config`")
    report.add_argument("--stack", help="the stack whose Pulumi.<stack>.yaml (in the current directory) gives its "
                                        "configuration; default: the stack the input names")
    report.add_argument("--output", "-o", metavar="FILE", help="write the report there instead of standard output")
    provider = commands.add_parser("provider", help="write the ComputeCluster component provider for other languages",
                                   description="Write a plugin directory that serves the ComputeCluster component "
                                               "to programs in any Pulumi language, with this environment's Python: "
                                               "use it with `pulumi package add DIR` or a YAML program's `packages:`.")
    provider.add_argument("directory", help="the directory to write (PulumiPlugin.yaml and __main__.py)")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    if arguments.command == "provider":
        return _provider(Path(arguments.directory))
    missing = missing_requirements("report")
    if missing:
        print(f"compute-guard report: {', '.join(missing)} not installed: install the report extra "
              "(pip install '/path/to/compute-guard[report]', from a checkout or its wheel)", file=sys.stderr)
        return UNREADABLE
    from compute_guard.report.cli import report

    return report(arguments)


def missing_requirements(extra: str) -> list[str]:
    """The distributions an extra of compute-guard requires that are not installed (none if compute-guard
    itself is not installed: a copy of the sources runs with what its environment has)."""
    try:
        requirements = metadata.requires("compute-guard") or []
    except metadata.PackageNotFoundError:
        return []
    missing = []
    for requirement in requirements:
        name = re.match(r"[A-Za-z0-9._-]+", requirement)
        if name is None or not re.search(rf"""extra *== *["']{extra}["']""", requirement):
            continue
        try:
            metadata.version(name[0])
        except metadata.PackageNotFoundError:
            missing.append(name[0])
    return missing


def _provider(directory: Path) -> int:
    from compute_guard.component.provider import NotInVirtualenv, write_plugin

    try:
        write_plugin(directory)
    except (NotInVirtualenv, OSError) as error:
        print(f"compute-guard provider: {error}", file=sys.stderr)
        return UNREADABLE
    print(f"wrote {directory}: use it with `pulumi package add {directory}` or a YAML program's "
          f"`packages: {{compute: {directory}}}`")
    return CLEAN


if __name__ == "__main__":
    sys.exit(main())
