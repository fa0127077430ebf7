"""One AWS ComputeCluster; its pool's machine and id come from config, as secrets when set so. With config
`pin` (amd64, arm64, or 'none'), a Deployment on the pool too, pinned so (rendered to a directory); with config
`maxUnavailable`, a PodDisruptionBudget of its Pods allowing that many (`budgets`: how many such budgets)."""

import pulumi

from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs

config = pulumi.Config()
machine = config.get_secret("machine") if config.get_bool("secretMachine") else config.get("machine")
pool = config.get_secret("pool") if config.get_bool("secretPool") else config.get("pool")

ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
    CapacityGroup(group_id=pool or "general", min_size=1, max_size=config.get_int("maxSize") or 3,
                  instance_type=machine or "t4g.small"),
]))

pin = config.get("pin")
if pin:
    import pulumi_kubernetes as k8s

    render = k8s.Provider("render", render_yaml_to_directory="rendered")
    spec = {"containers": [{"name": "api", "image": "example.test/api:1",
                            "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}}}]}
    if pin != "none":
        spec["nodeSelector"] = {"kubernetes.io/arch": pin}
    k8s.apps.v1.Deployment("api", metadata={"name": "api"}, spec={
        "selector": {"matchLabels": {"app": "api"}},
        "template": {"metadata": {"labels": {"app": "api"}}, "spec": spec}},
        opts=pulumi.ResourceOptions(provider=render))

    budget = config.get("maxUnavailable")
    for index in range(config.get_int("budgets") or (1 if budget is not None else 0)):
        k8s.policy.v1.PodDisruptionBudget(f"api-{index}" if index else "api", metadata={"name": f"api-{index}"}, spec={
            "selector": {"matchLabels": {"app": "api"}}, "maxUnavailable": int(budget or 1)},
            opts=pulumi.ResourceOptions(provider=render))
