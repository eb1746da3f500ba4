"""How a run and its worker processes end: on a signal, and when the main process dies.

A CI job that is cancelled sends SIGTERM (a closed terminal SIGHUP); an out-of-memory
killer sends SIGKILL. Workers that outlive the run keep its output pipe open, so a
``jaxlint … | cat`` never ends, and they hold their memory. So:

- the command line turns SIGTERM and SIGHUP into ``Terminated``, which unwinds the run like
  Ctrl-C does: the pool's workers are killed, a fix being written is left old or new, and
  the run exits 128 + the signal's number with one line;
- each worker asks the kernel for SIGKILL when its parent dies (Linux ``PR_SET_PDEATHSIG``),
  and where that is not available a thread watches the parent and ends the worker.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)


class Terminated(BaseException):  # like KeyboardInterrupt: not an Exception, never caught as one
    """The run was asked to end by ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def _raise(signum: int, frame: object) -> None:
    raise Terminated(signum)


@contextmanager
def terminated_on_signals() -> Iterator[None]:
    """While inside: SIGTERM and SIGHUP raise ``Terminated`` in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.signal(s, _raise) for s in SIGNALS}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


def die_with_parent(parent: int) -> None:
    """In a worker: end this process when ``parent`` (the run) is gone."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(1, signal.SIGKILL, 0, 0, 0) != 0:  # PR_SET_PDEATHSIG
            raise OSError(ctypes.get_errno(), "prctl")
        if os.getppid() != parent:
            if not _alive(parent):  # it died before the request was made
                os._exit(1)
            # started by a fork server (the language server's pool): the request watches that
            # server; the run itself is watched here
            threading.Thread(target=_watch_pid, args=(parent,), daemon=True, name="jaxlint-parent-watch").start()
        return
    except (OSError, AttributeError):
        pass
    watch = _watch if os.getppid() == parent else _watch_pid
    threading.Thread(target=watch, args=(parent,), daemon=True, name="jaxlint-parent-watch").start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _watch_pid(pid: int) -> None:
    while _alive(pid):
        time.sleep(0.5)
    os._exit(1)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def ignore_interrupts() -> None:
    """In a worker: Ctrl-C and a closed terminal reach the whole process group; they are for
    the main process, which ends the workers itself (no traceback from each worker). SIGTERM
    stays: it is how a pool ends a worker it gave up on."""
    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    # a forked worker inherits the run's SIGTERM handler (which unwinds the run with a
    # Terminated exception): a pool ending a worker then printed that traceback
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def freeze_at_exit() -> None:
    """Spare the interpreter's last cycle collections, at exit, the run's heap: they scanned
    every object jaxlint imported or built, a sixth of the CPU time of a one-file run.
    ``gc.freeze`` first changes nothing else: atexit handlers still run, the streams are
    flushed, and the memory goes with the process."""
    import atexit
    import gc

    atexit.unregister(gc.freeze)  # once, however many commands ran in this process
    atexit.register(gc.freeze)
