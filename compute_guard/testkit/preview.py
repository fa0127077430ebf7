"""``pulumi preview --policy-pack`` for machines without the Pulumi CLI.

    python -m testkit.preview examples/kubernetes [--stack dev] [--policy-pack-config config.json]

Runs the program directory under mocks with its stack's configuration (``Pulumi.<stack>.yaml``),
evaluates every compute-guard policy the way the engine does, and prints the findings grouped
the way ``pulumi preview`` prints them. Exits 1 on a mandatory violation, like a failed preview.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from compute_guard import policies

from .analyzer import Analyzer, PolicyResult, Resource, Unchecked, stack_environment
from .program import capture

ROOT = Path(__file__).resolve().parents[2]  # the pack directory of this checkout


def _stack_config(program: Path, stack: str) -> tuple[str, dict[str, Any]]:
    project = yaml.safe_load((program / "Pulumi.yaml").read_text())["name"]
    stack_file = program / f"Pulumi.{stack}.yaml"
    config: dict[str, Any] = {}
    if stack_file.exists():
        for key, value in ((yaml.safe_load(stack_file.read_text()) or {}).get("config") or {}).items():
            name = key if ":" in key else f"{project}:{key}"
            config[name] = value if isinstance(value, str) else json.dumps(value)
    return project, config


def render(project: str, stack: str, resources: list[Resource], result: PolicyResult,
           unchecked: list[Unchecked] | None = None) -> str:
    by_urn = {r.urn: r for r in resources}
    lines = [f"Previewing update ({stack}) offline: {project} (no Pulumi CLI; the program ran under mocks)", "",
             "     Type                                         Name",
             f" +   pulumi:pulumi:Stack                          {project}-{stack}"]
    for resource in resources:
        lines.append(f" +   ├─ {resource.type:<44}{resource.name}")
    lines += ["", "Policies:"]
    failed = bool(result.mandatory)
    mark = "❌" if failed else "✅"
    lines.append(f"    {mark} {policies.PACK_NAME}@v{policies.PACK_VERSION} (local: {ROOT})")
    for item in sorted(result.violations + result.notes, key=lambda v: (v.level != "mandatory", v.policy, v.urn)):
        where = by_urn.get(item.urn)
        target = f"  ({where.type}: {where.name})" if where else ""
        severity = f" [severity: {item.severity}]" if item.severity else ""
        lines.append(f"        - [{item.level}]{severity}  {item.policy}{target}")
        for text in item.message.split("\n"):
            lines.append(f"          {text}")
    if unchecked:  # said where the findings are: a clean mark above covers none of these workloads
        lines += ["", "Not checked offline (only the Kubernetes provider renders these; `pulumi preview` does):"]
        lines += [f"    - {item.type} '{item.name}' ({item.reason}): no policy saw its workloads; pass"
                  f" --rendered {item.name}=<its rendered manifests> to check them" for item in unchecked]
    lines += ["", "Resources:", f"    + {len(resources) + 1} to create"]
    if failed:
        lines += ["", f"error: preview failed: {len(result.mandatory)} mandatory policy violation(s)"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("program", type=Path, help="a Pulumi Python program directory")
    parser.add_argument("--stack", default="dev")
    parser.add_argument("--policy-pack-config", type=Path, help="a JSON file, as for pulumi preview")
    parser.add_argument("--rendered", action="append", default=[], metavar="NAME=PATH",
                        help="a Helm chart's (or kustomization's) rendered manifests, such as the files"
                             " renderYamlToDirectory wrote: its workloads are then checked too")
    args = parser.parse_args(argv)
    rendered: dict[str, Path] = {}
    for item in args.rendered:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            parser.error(f"--rendered {item}: give it as NAME=PATH")
        rendered[name] = Path(path)
    project, config = _stack_config(args.program, args.stack)
    policy_config = json.loads(args.policy_pack_config.read_text()) if args.policy_pack_config else None
    try:
        captured = capture(args.program.resolve(), stack_config=config, project=project, stack=args.stack,
                           rendered=rendered)
    except ValueError as error:  # --rendered names what the program does not declare
        parser.error(str(error))
    with stack_environment(config, project, args.stack, True):
        result = Analyzer(policy_config).run(captured.resources)
    print(render(project, args.stack, captured.resources, result, captured.unchecked))
    return 1 if result.mandatory else 0


if __name__ == "__main__":
    sys.exit(main())
