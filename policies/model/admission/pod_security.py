"""The Pod Security Standards a namespace's ``pod-security.kubernetes.io/enforce`` label makes the API server enforce
(kubernetes.io/docs/concepts/security/pod-security-standards, at ``latest``), checked on a pod spec: the ``baseline``
checks, and for ``restricted`` those and its own. Held to Kubernetes' own k8s.io/pod-security-admission/policy by
the Go oracle (tests/oracle/test_pod_security_oracle.py). Each check returns what breaks it, as a clause.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..values import Unknown, child, first_unknown, is_list, is_mapping, listed, plain

LEVELS = ("privileged", "baseline", "restricted")
BASELINE_CAPABILITIES = frozenset({"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                                   "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"})
SAFE_SYSCTLS = frozenset({
    "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes"})
SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"})
RESTRICTED_VOLUMES = frozenset({"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                                "projected", "secret", "image"})
VOLUME_SOURCES = frozenset({*RESTRICTED_VOLUMES, "hostPath", "gcePersistentDisk", "awsElasticBlockStore",
                            "gitRepo", "nfs", "iscsi", "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker",
                            "fc", "azureFile", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk",
                            "portworxVolume", "scaleIO", "storageos"})


def _containers(spec: Any) -> Iterator[tuple[str, Any]]:
    for key in ("initContainers", "containers", "ephemeralContainers"):
        entries = plain(child(spec, key))
        for index, container in enumerate(entries if is_list(entries) else ()):
            name = container.get("name") if is_mapping(container) else None
            yield (name if isinstance(name, str) else f"{key}[{index}]"), container


def _get(value: Any, *path: str) -> Any:
    for key in path:
        value = value.get(key) if is_mapping(value) else None
    return value


def violations(spec: Any, metadata: Any, level: str) -> list[str] | Unknown:
    """What of ``spec`` (a pod spec) and ``metadata`` (its pod template's) the level forbids; Unknown when a value
    that decides is not known yet."""
    spec, metadata = plain(spec), plain(metadata)
    for value in (spec, metadata):
        if isinstance(value, Unknown):
            return value
    found = first_unknown(spec) or first_unknown(metadata)
    if found is not None:
        return found
    if level not in ("baseline", "restricted"):
        return []
    # restricted's capabilities and seccomp checks replace baseline's, and exempt Windows Pods (v1.25)
    replaced = level == "restricted" and _get(spec, "os", "name") == "windows"
    broken = _baseline(spec, metadata if is_mapping(metadata) else {}, replaced)
    if level == "restricted":
        broken += _restricted(spec)
    return broken


def _baseline(spec: Any, metadata: Any, replaced: bool = False) -> list[str]:
    broken: list[str] = []
    pod = _get(spec, "securityContext")
    containers = list(_containers(spec))
    if _get(pod, "windowsOptions", "hostProcess") is True or any(
            _get(c, "securityContext", "windowsOptions", "hostProcess") is True for _n, c in containers):
        broken.append("hostProcess")
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if _get(spec, key) is True:
            broken.append(f"{key}=true")
    privileged = [name for name, c in containers if _get(c, "securityContext", "privileged") is True]
    if privileged:
        broken.append(f"privileged ({listed(privileged)})")
    added = sorted({str(cap) for _n, c in containers for cap in (_get(c, "securityContext", "capabilities", "add")
                                                                 or []) if cap not in BASELINE_CAPABILITIES})
    if added and not replaced:
        broken.append(f"capabilities.add {added}")
    volumes = _get(spec, "volumes") or []
    host_paths = [v.get("name") for v in volumes if is_mapping(v) and v.get("hostPath") is not None]
    if host_paths:
        broken.append(f"hostPath volumes {host_paths}")
    ports = [name for name, c in containers for port in (c.get("ports") or [] if is_mapping(c) else [])
             if is_mapping(port) and port.get("hostPort") not in (None, 0)]
    if ports:
        broken.append(f"hostPort ({listed(dict.fromkeys(ports))})")
    annotations = _get(metadata, "annotations") or {}
    apparmor = [key for key, value in annotations.items() if str(key).startswith(
        "container.apparmor.security.beta.kubernetes.io/") and not (value in ("", "runtime/default") or (
            isinstance(value, str) and value.startswith("localhost/")))]
    profiles = [_get(pod, "appArmorProfile", "type"), *(_get(c, "securityContext", "appArmorProfile", "type")
                                                       for _n, c in containers)]
    if apparmor or any(kind not in (None, "RuntimeDefault", "Localhost") for kind in profiles):
        broken.append("AppArmor profile")
    options = [_get(pod, "seLinuxOptions"), *(_get(c, "securityContext", "seLinuxOptions") for _n, c in containers)]
    if any(is_mapping(o) and (o.get("type", "") not in SELINUX_TYPES or o.get("user", "") != ""
                              or o.get("role", "") != "") for o in options):
        broken.append("seLinuxOptions")
    # a Pod in a user namespace (hostUsers: false) may unmask /proc at baseline since v1.35; restricted never
    if any(_get(c, "securityContext", "procMount") not in (None, "Default") for _n, c in containers) and \
            _get(spec, "hostUsers") is not False:
        broken.append("procMount")
    seccomp = [_get(pod, "seccompProfile", "type"), *(_get(c, "securityContext", "seccompProfile", "type")
                                                      for _n, c in containers)]
    if "Unconfined" in seccomp and not replaced:
        broken.append("seccompProfile Unconfined")
    hosts = [name for name, c in containers for handler in _handlers(c)
             for kind in ("httpGet", "tcpSocket") if _get(handler, kind, "host") not in (None, "")]
    if hosts:
        broken.append(f"probe or lifecycle host ({listed(dict.fromkeys(hosts))})")
    sysctls = [s.get("name") for s in (_get(pod, "sysctls") or []) if is_mapping(s) and s.get("name")
               not in SAFE_SYSCTLS]
    if sysctls:
        broken.append(f"sysctls {sysctls}")
    return broken


def _handlers(container: Any) -> Iterator[Any]:
    """Its probes and lifecycle handlers (their host field is forbidden at baseline since v1.34)."""
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        yield _get(container, key)
    for key in ("postStart", "preStop"):
        yield _get(container, "lifecycle", key)


def _restricted(spec: Any) -> list[str]:
    broken: list[str] = []
    pod = _get(spec, "securityContext")
    containers = list(_containers(spec))
    windows = _get(spec, "os", "name") == "windows"
    volumes = [v for v in (_get(spec, "volumes") or []) if is_mapping(v)]
    kinds = sorted({key for v in volumes for key in v if key in VOLUME_SOURCES and key not in RESTRICTED_VOLUMES
                    and key != "hostPath"})
    if kinds:
        broken.append(f"volume types {kinds}")
    # Windows Pods are exempt from the privilege escalation, seccomp and capabilities checks (since v1.25)
    escalation = [name for name, c in containers if _get(c, "securityContext", "allowPrivilegeEscalation") is not False]
    if escalation and not windows:
        broken.append(f"allowPrivilegeEscalation != false ({listed(escalation)})")
    if any(_get(c, "securityContext", "procMount") not in (None, "Default") for _n, c in containers):
        broken.append("procMount")  # restricted: unmasked /proc in no Pod (v1.35: procMount_restricted)
    user_namespace = _get(spec, "hostUsers") is False  # runAsNonRoot and runAsUser relax for it since v1.35
    pod_non_root = _get(pod, "runAsNonRoot")
    explicit = pod_non_root is False or any(_get(c, "securityContext", "runAsNonRoot") is False
                                            for _n, c in containers)
    implicit = pod_non_root is not True and not all(_get(c, "securityContext", "runAsNonRoot") is not None
                                                    for _n, c in containers)
    if not user_namespace and (explicit or implicit):
        broken.append("runAsNonRoot != true")
    if not user_namespace and (_get(pod, "runAsUser") == 0 or any(_get(c, "securityContext", "runAsUser") == 0
                                                                  for _n, c in containers)):
        broken.append("runAsUser=0")
    if windows:
        return broken
    pod_seccomp = _get(pod, "seccompProfile", "type")
    for _name, c in containers:
        kind = _get(c, "securityContext", "seccompProfile", "type")
        if (kind if kind is not None else pod_seccomp) not in ("RuntimeDefault", "Localhost"):
            broken.append("seccompProfile")
            break
    for _name, c in containers:
        capabilities = _get(c, "securityContext", "capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []) or any(cap != "NET_BIND_SERVICE"
                                                                 for cap in (capabilities.get("add") or [])):
            broken.append("capabilities (drop ALL, add at most NET_BIND_SERVICE)")
            break
    return broken
