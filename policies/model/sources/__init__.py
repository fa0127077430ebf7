"""Where pools come from besides a ComputeCluster, one module per platform (SPEC section 14)."""
