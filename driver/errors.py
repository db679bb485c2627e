"""The driver's own exit statuses (README: "The exit status ...") and the two problems that
end a command early. A test process's exit statuses are another protocol: reports/protocol.py."""

EXIT_OK = 0
EXIT_NONCONFORMING = 1  # a selected implementation fails a core test; a self-test failed
EXIT_USAGE = 2
EXIT_ENVIRONMENT = 3
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A mistake in the command line: printed, exit status 2."""


class EnvironmentProblem(Exception):
    """Something missing on this machine: printed, exit status 3."""
