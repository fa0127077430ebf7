"""The report's formats: a terminal table (rich), Markdown and HTML (Jinja2 templates), JSON (its schema is
``schema.json`` beside this file) and SARIF 2.1.0.

Every format says the same things: the findings as the pack reported them, and per pool its capacity
at maxSize against what is placed on it (the arithmetic in units people read).
"""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from compute_guard.policies import PACK_NAME, PACK_VERSION
from compute_guard.policies.platforms.quantity import CPU, MEMORY, PODS

from .model import POLICY_DESCRIPTIONS, POLICY_STEPS, RESOURCES, VERSION, PoolView, Report, shown

HERE = Path(__file__).resolve().parent
LABELS = {CPU: "CPU", MEMORY: "memory", PODS: "Pods"}
FORMATS = ("table", "markdown", "json", "sarif", "html")


def render(report: Report, form: str, *, color: bool = False) -> str:
    if form == "json":
        return json.dumps(document(report), indent=2) + "\n"
    if form == "sarif":
        return json.dumps(sarif(report), indent=2) + "\n"
    if form == "table":
        return table(report, color=color)
    return _template(f"report.{'md' if form == 'markdown' else 'html'}.j2").render(**_context(report))


# --- the numbers every format shows ------------------------------------------------------------------------

def _fraction(used: Decimal | None, capacity: Decimal | None) -> float | None:
    if used is None or capacity is None or capacity <= 0:
        return None
    return float(used / capacity)


def usage(view: PoolView, resource: str) -> dict[str, Any]:
    """One resource of a pool: used at maxSize, its capacity, and the share, in numbers and words."""
    used, capacity = view.used(resource), view.capacity(resource)
    fraction = _fraction(used, capacity)
    return {"resource": resource, "label": LABELS[resource], "used": used, "capacity": capacity,
            "node": view.allocatable.get(resource), "fraction": fraction,
            "text": f"{shown(resource, used)} of {shown(resource, capacity)}"
                    + (f" ({fraction:.0%})" if fraction is not None else ""),
            "over": fraction is not None and fraction > 1}


def node_text(view: PoolView) -> str:
    """One node's allocatable: '4 cores CPU, 15.9 GiB memory, 110 Pods'."""
    return ", ".join(f"{shown(r, view.allocatable.get(r))} {LABELS[r]}" for r in RESOURCES)


def about(view: PoolView) -> str:
    """The pool in one line: sizes, architecture, machine or profile, what a node holds back and what its
    DaemonSets take."""
    sizes = f"{'?' if view.min_size is None else view.min_size}-{'?' if view.max_size is None else view.max_size} nodes"
    parts = [sizes, view.architecture or "no architecture", view.machine or "its profile"]
    reserved = [f"{shown(r, view.reserved.get(r))} {LABELS[r]}" for r in (CPU, MEMORY) if view.reserved.get(r)]
    if reserved:
        parts.append(f"{' and '.join(reserved)} reserved per node")
    daemons = [f"{shown(r, view.daemonsets.get(r))} {LABELS[r]}" for r in (CPU, MEMORY) if view.daemonsets.get(r)]
    if daemons:
        parts.append(f"DaemonSets take {' and '.join(daemons)} per node")
    if view.zones:
        parts.append(f"zones {', '.join(view.zones)}")
    if view.systems:
        parts.append(f"{' and '.join(view.systems)} nodes")
    if view.capacity_types:
        parts.append(f"{' or '.join(view.capacity_types)} capacity")
    if view.version:
        parts.append(f"Kubernetes {view.version}")
    if view.change:
        parts.append(f"this preview: {view.change}")
    if view.addresses:
        parts.append(f"its nodes take {'; '.join(address.text for address in view.addresses)}")
    if view.not_counted:  # pool-capacity leaves out the same
        parts.append(f"not counted in its totals: {', '.join(view.not_counted)} (one Pod fits no node)")
    return "; ".join(parts)


def _context(report: Report) -> dict[str, Any]:
    pools = []
    for view in report.pools:
        pools.append({"view": view, "usage": [usage(view, resource) for resource in RESOURCES],
                      "node": node_text(view), "about": about(view),
                      "uses": [{"use": use, "cpu": shown(CPU, use.per_pod[CPU]),
                                "memory": shown(MEMORY, use.per_pod[MEMORY]),
                                # not drawn when not counted: the bar shows what pool-capacity counts
                                "share": {r: _fraction(use.total[r], view.capacity(r)) if use.counted else None
                                          for r in RESOURCES}}
                               for use in view.uses]})
    return {"report": report, "pools": pools, "pack": f"{PACK_NAME} {PACK_VERSION}",
            "mandatory": report.mandatory, "descriptions": POLICY_DESCRIPTIONS,
            "violations": [f for f in report.findings if not f.note], "notes": [f for f in report.findings if f.note]}


def _template(name: str) -> Any:
    import jinja2

    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                                     autoescape=jinja2.select_autoescape(["html.j2"]), trim_blocks=True,
                                     lstrip_blocks=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    environment.filters["cell"] = lambda text: str(text).replace("|", "\\|").replace("\n", " ")
    environment.filters["percent"] = lambda value: "?" if value is None else f"{value:.0%}"
    return environment.get_template(name)


# --- terminal -------------------------------------------------------------------------------------------------

def table(report: Report, *, color: bool = False) -> str:
    from rich.console import Console
    from rich.table import Table

    out = io.StringIO()
    console = Console(file=out, width=160, force_terminal=color, no_color=not color, highlight=False)
    title = f"compute-guard report: stack '{report.stack}' ({report.kind}), platform {report.platform or 'not known'}"
    console.print(title, style="bold")
    pools = Table(title="Pools at maxSize", title_justify="left", show_lines=False)
    for column in ("cluster / pool", "nodes", "one node", "CPU", "memory", "Pods", "placed"):
        pools.add_column(column)
    for view in report.pools:
        cells = [usage(view, resource) for resource in RESOURCES]
        node = node_text(view)
        placed = ", ".join(f"{use.name}{'*' if use.daemon else ''}{'' if use.pinned else ' (unpinned)'}"
                           for use in view.uses) or "-"
        pools.add_row(f"{view.cluster} / {view.pool}", "?" if view.max_size is None else str(view.max_size),
                      f"{view.machine + ': ' if view.machine else ''}{node}",
                      *[f"[red]{cell['text']}[/red]" if cell["over"] and color else cell["text"] for cell in cells],
                      placed)
    console.print(pools)
    if any(use.daemon for view in report.pools for use in view.uses):
        console.print("* a DaemonSet (one Pod per node)", style="dim")
    findings = Table(title=f"Findings ({len(report.mandatory)} mandatory)", title_justify="left")
    for column in ("level", "policy", "resource", "finding"):
        findings.add_column(column, overflow="fold")
    for finding in report.findings:
        level = "note" if finding.note else finding.level
        findings.add_row(f"[red]{level}[/red]" if level == "mandatory" and color else level, finding.policy,
                         finding.name or "(stack)", finding.message)
    console.print(findings if report.findings else "No findings.")
    return out.getvalue()


# --- JSON -----------------------------------------------------------------------------------------------------

def _number(value: Decimal | None) -> int | float | None:
    if value is None:
        return None
    return int(value) if value == value.to_integral_value() else float(value)


def document(report: Report) -> dict[str, Any]:
    """The JSON document (schema.json): amounts in base units (millicores, bytes, Pods)."""
    return {
        "version": VERSION,
        "tool": {"name": PACK_NAME, "version": PACK_VERSION},
        "stack": {"project": report.project, "name": report.stack, "input": report.kind,
                  "platform": report.platform},
        "summary": {"mandatory": len(report.mandatory),
                    "violations": sum(not f.note for f in report.findings),
                    "notes": sum(f.note for f in report.findings), "pools": len(report.pools)},
        "findings": [{"policy": f.policy, "level": f.level, "severity": f.severity, "urn": f.urn or None,
                      "type": f.type or None, "name": f.name or None, "message": f.message, "note": f.note}
                     for f in report.findings],
        "pools": [{
            "cluster": view.cluster, "clusterUrn": view.cluster_urn, "pool": view.pool, "maxSize": view.max_size,
            "nodes": view.counted_nodes,
            "minSize": view.min_size, "machine": view.machine, "architecture": view.architecture,
            "node": {resource: _number(view.allocatable.get(resource)) for resource in RESOURCES},
            "reserved": {resource: _number(view.reserved.get(resource)) for resource in RESOURCES},
            "daemonsetsPerNode": {resource: _number(view.daemonsets.get(resource)) for resource in RESOURCES},
            "capacity": {resource: _number(view.capacity(resource)) for resource in RESOURCES},
            "used": {resource: _number(view.used(resource)) for resource in RESOURCES},
            "notCounted": list(view.not_counted), "zones": list(view.zones) if view.zones is not None else None,
            "os": list(view.systems) if view.systems is not None else None,
            "capacityType": list(view.capacity_types) if view.capacity_types is not None else None,
            "kubernetesVersion": view.version, "change": view.change,
            "addresses": [{"space": address.space, "needed": address.needed, "usable": address.usable}
                          for address in view.addresses],
            "workloads": [{"name": use.name, "kind": use.kind, "urn": use.urn, "daemon": use.daemon, "pods": use.pods,
                           "perPod": {r: _number(use.per_pod[r]) for r in RESOURCES},
                           "total": {r: _number(use.total[r]) for r in RESOURCES},
                           "pinned": use.pinned, "pin": use.pin, "placement": use.placement,
                           "flaggedBy": list(use.flagged), "verdicts": list(use.verdicts), "counted": use.counted,
                           "budget": use.budget}
                          for use in view.uses],
        } for view in report.pools],
        "unplaced": report.unplaced,
    }


# --- SARIF 2.1.0 ----------------------------------------------------------------------------------------------

SARIF_LEVELS = {"mandatory": "error", "advisory": "warning", "remediate": "note", "disabled": "none"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def sarif(report: Report) -> dict[str, Any]:
    """One run of the pack: a rule per policy (its description and remediation steps as help), a result per
    finding, located logically by the resource's URN."""
    from compute_guard.policies import ALL

    rules = [{"id": policy.name, "name": policy.name,
              "shortDescription": {"text": policy.description},
              "fullDescription": {"text": policy.description},
              "help": {"text": policy.remediation_steps},
              "defaultConfiguration": {"level": SARIF_LEVELS.get(policy.level.value, "warning")},
              "properties": {"severity": policy.severity.value}} for policy in ALL]
    index = {policy.name: i for i, policy in enumerate(ALL)}
    results = []
    for finding in report.findings:
        result: dict[str, Any] = {
            "ruleId": finding.policy, "level": "note" if finding.note else SARIF_LEVELS.get(finding.level, "warning"),
            "message": {"text": finding.message}}
        if finding.policy in index:
            result["ruleIndex"] = index[finding.policy]
        if finding.urn:
            result["locations"] = [{"logicalLocations": [{
                "name": finding.name, "fullyQualifiedName": finding.urn, "kind": "resource"}]}]
        result["properties"] = {"enforcementLevel": finding.level, "severity": finding.severity}
        results.append(result)
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": PACK_NAME, "version": PACK_VERSION, "informationUri":
                            "https://www.pulumi.com/docs/iac/using-pulumi/crossguard/", "rules": rules}},
        "results": results,
        "properties": {"stack": report.stack, "project": report.project, "platform": report.platform},
    }]}


__all__ = ["FORMATS", "POLICY_STEPS", "document", "render", "sarif", "table"]
