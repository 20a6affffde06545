"""One line for an error a person can act on, for the command line and the desk alike."""

from __future__ import annotations


def describe_error(exc: BaseException) -> str:
    """The error as one line: file errors say where and what to do, store, settings and
    entry errors are their message, anything else is named as unexpected."""
    # Imported when an error is described, not at every command's start-up.
    from memdesk.core.atomic import describe_os_error
    from memdesk.core.storage.errors import StoreError

    if isinstance(exc, OSError):
        return describe_os_error(exc)
    if isinstance(exc, StoreError | ValueError):  # settings, entry and search errors
        return " ".join(str(exc).split()) or type(exc).__name__
    return (
        f"unexpected {type(exc).__name__}: {' '.join(str(exc).split())} "
        "(set MEMDESK_DEBUG=1 to see where)"
    )
