"""One AWS ComputeCluster; its pool's machine and id come from config, as secrets when set so."""

import pulumi

from compute_guard.component import CapacityGroup, ComputeCluster, ComputeClusterArgs

config = pulumi.Config()
machine = config.get_secret("machine") if config.get_bool("secretMachine") else config.get("machine")
pool = config.get_secret("pool") if config.get_bool("secretPool") else config.get("pool")

ComputeCluster("compute", ComputeClusterArgs(id="compute", capacity_groups=[
    CapacityGroup(group_id=pool or "general", min_size=1, max_size=config.get_int("maxSize") or 3,
                  instance_type=machine or "t4g.small"),
]))
