"""Parser processes die with their parent, however it dies.

A SIGKILLed indexer runs no cleanup, and its forkserver and pool workers would otherwise wait forever
(workers hold the forkserver's alive pipe open, so it never sees its client go). Linux can deliver a
signal to a child when its parent dies (``PR_SET_PDEATHSIG``): the forkserver asks for it against the
indexer, each worker against the forkserver (or the indexer, without a forkserver), so one death
takes the whole chain. Elsewhere this is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
import sys

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
DEATH_SIGNAL = signal.SIGKILL  # nothing to clean up in a parser process: its batch's transaction rolls back
# the pid a parser process must have as parent, inherited through the environment: a process that starts
# after its parent died is already re-parented, so its own getppid() could not tell
PARENT_PID_ENV = "FOREWARN_PARSER_PARENT_PID"


def expect_children() -> None:
    """Called in the process about to start parser processes (the indexer, then the forkserver)."""
    os.environ[PARENT_PID_ENV] = str(os.getpid())


def die_with_parent() -> None:
    """Ask the kernel to kill this process when its parent dies; exit now if it is already gone."""
    if not sys.platform.startswith("linux"):
        return
    expected = os.environ.get(PARENT_PID_ENV)
    parent = int(expected) if expected and expected.isdigit() else os.getppid()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(DEATH_SIGNAL), 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    except (OSError, AttributeError) as exc:  # no usable libc: workers then outlive a killed parent, as before
        log.warning("cannot tie parser processes to their parent: %s", exc)
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
