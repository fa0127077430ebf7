"""The pack started the way the engine starts it, driven over gRPC.

``python -u -m pulumi.policy <engine-address> <pack-dir>`` from the pack's own interpreter,
with the pack directory as working directory: it prints a port, then serves the Analyzer.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from builders import ROOT, valid_cluster_props
from google.protobuf import empty_pb2, json_format
from pulumi.runtime import proto
from pulumi.runtime.proto import analyzer_pb2_grpc

from compute_guard.testkit import Resource

# the checked-in list of public names (tests/test_layout.py holds the pack to it), in the pack's order
POLICY_NAMES = [line for line in (Path(__file__).resolve().parents[1] / "policy_names.txt").read_text().splitlines()
                if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def analyzer():
    env = dict(os.environ, PULUMI_PROJECT="project", PULUMI_STACK="stack", PULUMI_DRY_RUN="true",
               PULUMI_CONFIG=json.dumps({"compute:platform": "kubernetes"}))
    process = subprocess.Popen([sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:0", str(ROOT)],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        port = int(process.stdout.readline().decode().strip())
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=30)
        yield analyzer_pb2_grpc.AnalyzerStub(channel)
        channel.close()
    finally:
        process.kill()
        process.wait()


def test_it_prints_a_port_and_lists_the_policies(analyzer):
    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty())
    assert info.name == "compute-guard"
    assert [p.name for p in info.policies] == POLICY_NAMES
    levels = {p.name: p.enforcementLevel for p in info.policies}
    # every policy is mandatory by default, except the one that changes programs' resources, the two that
    # show what the pack cannot check, disruption-budget-useful (SPEC section 15), workload-requests-declared,
    # workload-interruption-tolerant and cluster-support-window (SPEC section 23)
    assert levels == {**{name: proto.MANDATORY for name in POLICY_NAMES}, "workload-architecture-pin": proto.DISABLED,
                      "helm-release-unchecked": proto.ADVISORY, "cloud-machine-new-family": proto.ADVISORY,
                      "exemptions-in-force": proto.ADVISORY, "disruption-budget-useful": proto.ADVISORY,
                      "workload-requests-declared": proto.ADVISORY, "workload-interruption-tolerant": proto.ADVISORY,
                      "cluster-support-window": proto.ADVISORY}
    assert all(p.description and p.remediation_steps for p in info.policies)
    by_name = {p.name: p for p in info.policies}
    assert by_name["compute-pools-single-architecture"].policy_type == proto.PolicyType.POLICY_TYPE_STACK
    assert by_name["compute-cluster-valid"].policy_type == proto.PolicyType.POLICY_TYPE_RESOURCE
    schema = json_format.MessageToDict(by_name["kubernetes-compute-enforceable"].configSchema.properties)
    assert schema["platform"]["enum"] == ["aws", "gcp", "azure", "kubernetes", "local"]


def test_it_analyzes_resources_over_grpc(analyzer):
    props = valid_cluster_props(capacityGroups=[{"groupId": "apps", "minSize": 3, "maxSize": 2,
                                                 "nestedVirtualization": True}])
    resource = Resource.of("compute:index:ComputeCluster", "compute", props)
    analyzer.Configure(proto.ConfigureAnalyzerRequest())
    response = analyzer.Analyze(proto.AnalyzeRequest(type=resource.type, properties=resource.inputs,
                                                     urn=resource.urn, name=resource.name))
    found = sorted((d.policyName, d.message.split("\n", 1)[1]) for d in response.diagnostics)
    assert found == [
        ("compute-cluster-valid", "ComputeCluster 'compute' pool 'apps': minSize 3 is greater than maxSize 2; "
                                  "lower minSize or raise maxSize"),
        ("kubernetes-compute-enforceable", "ComputeCluster 'compute' pool 'apps': nestedVirtualization is true, "
                                           "but Kubernetes cannot guarantee nested virtualization on "
                                           "administrator-managed nodes; remove it or set it to false"),
    ]
    stack = analyzer.AnalyzeStack(proto.AnalyzeStackRequest(resources=[proto.AnalyzerResource(
        type=resource.type, properties=resource.inputs, urn=resource.urn, name=resource.name)]))
    assert list(stack.diagnostics) == []
