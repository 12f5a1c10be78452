"""Errors that reach the user as one line and exit code 2."""


class UsageError(Exception):
    """Bad usage or unreadable input. The message names the file and the problem."""

    exit_code = 2
