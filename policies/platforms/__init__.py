"""Facts of the platforms: the machine catalog (generated data), Kubernetes quantities, the stack's platform."""
