"""The ComputeCluster component as a component provider, for programs in any Pulumi language."""

from compute_guard.component.provider import serve

serve()
