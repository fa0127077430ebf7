"""The adapters to pulumi-policy: the subjects a policy applies to, the pack state of a process, the previous
deployment, exemptions, findings and their reporting, and the one module of the SDK's private names."""
