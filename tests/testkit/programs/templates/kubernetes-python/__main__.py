"""A Deployment as Pulumi's `pulumi new kubernetes-python` template declares one (pulumi/templates; written again for
these tests, not copied): nginx, one replica, on the cluster of the ambient kubeconfig, which no resource of the stack
declares."""

import pulumi
from pulumi_kubernetes.apps.v1 import Deployment

labels = {"app": "nginx"}
deployment = Deployment("nginx", spec={
    "selector": {"match_labels": labels},
    "replicas": 1,
    "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}},
})
pulumi.export("name", deployment.metadata["name"])
