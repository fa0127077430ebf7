"""The Pod Security Standards namespace-admits-workload enforces (policies/model/admission/pod_security.py) held to Kubernetes'
own k8s.io/pod-security-admission/policy (issue 61, SPEC 21): on generated Pods, at baseline and restricted and the
latest version, the pack finds something to refuse exactly when the evaluator does not allow the Pod.

Each Pod draws, per field the standards read, a value each standard allows, one it forbids, or none: host
namespaces, hostProcess, privileged, capabilities (add and drop), hostPath and other volumes, host ports, AppArmor
(annotation and field), SELinux options, procMount, seccomp (pod and container), sysctls, probe and lifecycle
hosts, allowPrivilegeEscalation, runAsNonRoot, runAsUser, hostUsers and spec.os.name, over one to three containers
(init and app). ORACLE_SEED and ORACLE_EXAMPLES as in test_kubernetes_oracle.py.
"""

from __future__ import annotations

import os
import random
from typing import Any

from kube_oracle import ask

from compute_guard.policies.model.admission.pod_security import violations

SEED = int(os.environ.get("ORACLE_SEED", "61"))
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "3000"))


RARE = 0.8  # how often a field is left unset (or as the hardened Pod has it)


def maybe(rng: random.Random, *values: Any) -> Any:
    """One of ``values``, or None (left unset) most of the time: most Pods break one rule or none."""
    return None if rng.random() < RARE else rng.choice(values)


HARDENED = {"allowPrivilegeEscalation": False, "runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"},
            "capabilities": {"drop": ["ALL"]}}


def security_context(rng: random.Random) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, values in (("privileged", (True, False)), ("allowPrivilegeEscalation", (True, False)),
                        ("runAsNonRoot", (True, False)), ("runAsUser", (0, 1000)),
                        ("procMount", ("Default", "Unmasked"))):
        value = maybe(rng, *values)
        if value is not None:
            found[key] = value
    capabilities = {key: value for key, value in (
        ("add", maybe(rng, ["NET_BIND_SERVICE"], ["CHOWN"], ["SYS_ADMIN"], [])),
        ("drop", maybe(rng, ["ALL"], ["NET_RAW"], []))) if value is not None}
    if capabilities:
        found["capabilities"] = capabilities
    seccomp = maybe(rng, "RuntimeDefault", "Localhost", "Unconfined")
    if seccomp is not None:
        found["seccompProfile"] = {"type": seccomp, **({"localhostProfile": "p.json"} if seccomp == "Localhost" else {})}
    apparmor = maybe(rng, "RuntimeDefault", "Localhost", "Unconfined")
    if apparmor is not None:
        found["appArmorProfile"] = {"type": apparmor,
                                    **({"localhostProfile": "p"} if apparmor == "Localhost" else {})}
    selinux = maybe(rng, {"type": "container_t"}, {"type": "spc_t"}, {"user": "root"}, {"level": "s0:c1"})
    if selinux is not None:
        found["seLinuxOptions"] = selinux
    if rng.random() < 0.05:
        found["windowsOptions"] = {"hostProcess": True}
    return found


def container(rng: random.Random, name: str, hardened: bool) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, "image": "nginx"}
    context = {**(HARDENED if hardened else {}), **security_context(rng)}
    if context:
        found["securityContext"] = context
    if rng.random() < 0.2:
        found["ports"] = [{"containerPort": 80, **({"hostPort": rng.choice((0, 80))})}]
    if rng.random() < 0.15:
        found["livenessProbe"] = {"httpGet": {"port": 80, **({"host": "10.0.0.1"} if rng.random() < 0.5 else {})}}
    if rng.random() < 0.1:
        found["lifecycle"] = {"preStop": {"tcpSocket": {"port": 80, "host": rng.choice(("", "example.com"))}}}
    return found


def generated(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """A Pod's metadata and spec."""
    hardened = rng.random() < 0.5  # a Pod written for restricted, which the draws below may break
    spec: dict[str, Any] = {"containers": [container(rng, f"app{index}", hardened)
                                           for index in range(rng.randint(1, 2))]}
    if rng.random() < 0.3:
        spec["initContainers"] = [container(rng, "init", hardened)]
    for key in ("hostNetwork", "hostPID", "hostIPC", "hostUsers"):
        value = maybe(rng, True, False)
        if value is not None:
            spec[key] = value
    pod_context = {key: value for key, value in security_context(rng).items()
                   if key not in ("privileged", "allowPrivilegeEscalation", "procMount", "capabilities")}
    sysctl = maybe(rng, "net.ipv4.tcp_syncookies", "kernel.msgmax")
    if sysctl is not None:
        pod_context["sysctls"] = [{"name": sysctl, "value": "1"}]
    if pod_context:
        spec["securityContext"] = pod_context
    volume = maybe(rng, {"emptyDir": {}}, {"configMap": {"name": "c"}}, {"hostPath": {"path": "/var/log"}},
                   {"nfs": {"server": "s", "path": "/"}}, {"secret": {"secretName": "s"}})
    if volume is not None:
        spec["volumes"] = [{"name": "v", **volume}]
    if rng.random() < 0.1:
        spec["os"] = {"name": "windows"}
    metadata: dict[str, Any] = {"name": "p"}
    if rng.random() < 0.15:
        metadata["annotations"] = {"container.apparmor.security.beta.kubernetes.io/app0": rng.choice(
            ("runtime/default", "localhost/p", "unconfined", ""))}
    return metadata, spec


def test_the_packs_pod_security_standards_are_kubernetes_own():
    rng = random.Random(SEED)
    cases = []
    for _ in range(EXAMPLES):
        metadata, spec = generated(rng)
        for level in ("baseline", "restricted"):
            cases.append((level, metadata, spec))
    answer = ask({"podSecurity": [{"level": level, "pod": {"metadata": metadata, "spec": spec}}
                                  for level, metadata, spec in cases]})
    disagreements = []
    for (level, metadata, spec), found in zip(cases, answer["podSecurity"], strict=True):
        ours = violations(spec, metadata, level)
        assert isinstance(ours, list)
        if (ours == []) != found["allowed"]:
            disagreements.append((level, ours, found["reasons"], metadata, spec))
    assert disagreements == [], f"{len(disagreements)} of {len(cases)}; first: {disagreements[:2]}"
    allowed = sum(1 for found in answer["podSecurity"] if found["allowed"])
    assert 0.05 * len(cases) < allowed < 0.95 * len(cases)  # both verdicts are exercised
