"""Safe updates on an S3 backend under the real CLI: the stack's state lives in an S3-compatible
server on 127.0.0.1 (moto's server mode), which the pack cannot read itself, so
compute-cluster-safe-update asks the Pulumi CLI to export it; with no policy configuration a
cross-architecture machine change is rejected and a same-architecture one passes.

moto rather than an S3 server built from its Go module: it is on PyPI with the rest of the test
dependencies, starts in-process in a thread in well under a second, and speaks the S3 API the
CLI's gocloud.dev backend uses (path-style, any credentials)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from pulumi_cli import Finding, open_stack, policy_findings

MACHINES = Path(__file__).resolve().parent / "programs" / "machines"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"}


@pytest.fixture
def s3_backend() -> Iterator[str]:
    import boto3
    from moto.server import ThreadedMotoServer

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
                     aws_secret_access_key="testing").create_bucket(Bucket="compute-guard-state")
        yield f"s3://compute-guard-state?endpoint={endpoint}&use_path_style=true&region=us-east-1"
    finally:
        server.stop()


def test_machine_changes_are_checked_against_the_state_on_s3(toolchain, tmp_path, s3_backend):
    stack = open_stack(toolchain, MACHINES, tmp_path, "dev", {"compute:platform": "aws", "machine": "t4g.small"},
                       backend=s3_backend, env=CREDENTIALS)
    out = stack.ok(*stack.preview())  # never deployed: nothing to compare, nothing to report
    assert policy_findings(out) == []
    stack.ok(*stack.up())
    assert not (tmp_path / "state" / ".pulumi").exists()  # the state is on S3, not on a local backend

    stack.config("machine", "t4g.medium")
    out = stack.ok(*stack.preview())  # arm64 -> arm64, both AWS machines: rolled in place
    assert policy_findings(out) == []
    stack.config("machine", "m7i.large")
    out = stack.fails(*stack.preview())
    assert policy_findings(out) == [Finding(
        "mandatory", "compute-cluster-safe-update", "compute:index:ComputeCluster", "compute",
        "ComputeCluster 'compute' pool 'general': can't change machine from 't4g.small' (arm64) to 'm7i.large' "
        "(x86_64): only an "
        "AWS machine of the same CPU architecture can replace it; keep 't4g.small', or add a new pool with the "
        "new machine and move workloads to it")]
