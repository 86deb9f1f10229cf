"""The command line's own refusals (a missing argument, a file it cannot read), said on stderr
with exit status 2 like the engine's and the card reader's errors."""


class CommandError(Exception):
    """A command given what it cannot work with; the message says what and how to fix it."""
