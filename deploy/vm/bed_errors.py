"""The test bed's errors (bed.py re-exports them)."""


class BedError(RuntimeError):
    """The test bed could not do what was asked; the message says why and where to look."""


class GuestTimeout(BedError, TimeoutError):
    """The guest did not finish (or did not reach a point) in time."""


class GuestSetupError(BedError):
    """The guest booted but could not set up the chroot; the command never ran."""
