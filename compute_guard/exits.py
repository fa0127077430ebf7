"""The exit codes of the compute-guard command (SPEC section 12): one place, read by every subcommand."""

CLEAN, VIOLATION, UNREADABLE = 0, 1, 2  # clean; a mandatory violation; input that cannot be read
