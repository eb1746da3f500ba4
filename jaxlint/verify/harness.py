"""Run one rule's reference programs in this (fresh) process; the only module that imports jax.

Started as ``python harness.py`` by the runner, never imported by jaxlint. It reads a job
from stdin (JSON: ``devices`` and ``programs``), sets the number of simulated CPU devices
right after ``import jax`` (it only works before the backend starts), then runs every
program one after another in a fresh namespace and writes one JSON line per program on
the original stdout. The programs' own output goes to stderr so it cannot corrupt the
protocol. A program either raised (type, MRO, message, cause chain) or completed; then
its RESULT (or ORACLE) is flattened to float leaves with shapes, compared by the parent.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import sys
import time
import traceback
import warnings

MAX_MESSAGE = 4000


def _qualname(cls: type) -> str:
    mod = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if mod == "builtins" else f"{mod}.{name}"


def _describe(exc: BaseException) -> dict:
    chain: list[str] = []
    seen = {id(exc)}
    cur = exc.__cause__ or exc.__context__
    while cur is not None and id(cur) not in seen and len(chain) < 5:
        seen.add(id(cur))
        chain.append(f"{_qualname(type(cur))}: {str(cur)[:MAX_MESSAGE]}")
        cur = cur.__cause__ or cur.__context__
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return {
        "status": "raised",
        "type": _qualname(type(exc)),
        "mro": [_qualname(c) for c in type(exc).__mro__],
        "message": str(exc)[:MAX_MESSAGE],
        "chain": chain,
        "traceback": "".join(tb)[-MAX_MESSAGE:],
    }


def _flatten(value, jax, np) -> dict:
    """Leaves (in jax pytree order) as float64 lists with shapes; complex leaves gain a last axis [re, im]."""
    leaves, treedef = jax.tree_util.tree_flatten(value)
    out = []
    for leaf in leaves:
        if isinstance(leaf, jax.Array) and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.extended):
            leaf = jax.random.key_data(leaf)
        a = np.asarray(leaf)
        if a.dtype == object or a.dtype.kind not in "biufc":
            raise TypeError(f"leaf of type {type(leaf).__name__} (dtype {a.dtype}) is not numeric")
        if a.dtype.kind == "c":
            a = np.stack([a.real, a.imag], axis=-1)
        a = a.astype(np.float64)
        out.append({"shape": list(a.shape), "dtype": str(np.asarray(leaf).dtype), "data": a.ravel().tolist()})
    return {"structure": str(treedef), "leaves": out}


def _literal(value, np):
    """A TOML oracle: an array is one array, a table a dict of arrays."""
    if isinstance(value, dict):
        return {k: _literal(v, np) for k, v in value.items()}
    return np.asarray(value, dtype=np.float64)


def _snapshot(jax) -> dict:
    return dict(jax.config.values)


def _restore(jax, before: dict) -> None:
    """Undo jax config changes (e.g. jax_enable_x64) a program made, so the next one starts clean."""
    for name, value in before.items():
        if jax.config.values.get(name) != value:
            with contextlib.suppress(Exception):  # some options cannot change after start-up
                jax.config.update(name, value)


def main() -> int:
    job = json.loads(sys.stdin.read())
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # the programs' prints (and C-level output) go to stderr

    def emit(record: dict) -> None:
        proto.write(json.dumps(record) + "\n")
        proto.flush()

    t0 = time.perf_counter()
    devices = int(job.get("devices", 1))
    try:
        import jax

        try:
            jax.config.update("jax_num_cpu_devices", devices)
        except (AttributeError, KeyError):  # jax older than the option: XLA_FLAGS still works before start-up
            os.environ["XLA_FLAGS"] = (
                os.environ.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={devices}"
            ).strip()
        import numpy as np

        have = jax.device_count()
    except BaseException as e:
        emit({"event": "error", "message": f"cannot start jax: {type(e).__name__}: {e}"})
        return 1
    if have < devices:
        emit({"event": "error", "message": f"the spec needs {devices} devices, jax has {have}"})
        return 1
    emit({"event": "ready", "seconds": time.perf_counter() - t0, "jax": jax.__version__, "devices": have})

    for prog in job["programs"]:
        start = time.perf_counter()
        var = prog.get("var", "RESULT")
        record: dict = {"event": "program", "id": prog["id"]}
        before = _snapshot(jax)
        try:
            if "literal" in prog:
                value, found = _literal(prog["literal"], np), True
            else:
                sys.argv = [prog["path"]]
                # warning filters (e.g. simplefilter("error")) and numpy error state stay with the program
                with warnings.catch_warnings(), np.errstate():
                    ns = runpy.run_path(prog["path"], run_name="__main__")
                    found = var in ns
                    value = ns.get(var)
                    if found:
                        value = jax.block_until_ready(value)
        except SystemExit as e:
            if e.code in (None, 0):
                record.update(
                    status="completed", result=None, result_error=f"the program exited before assigning {var}"
                )
            else:
                record.update(_describe(e))
        except BaseException as e:  # the program's failure is the data
            if isinstance(e, KeyboardInterrupt):
                raise
            record.update(_describe(e))
        else:
            record["status"] = "completed"
            record["result"] = None
            if found:
                try:
                    record["result"] = _flatten(value, jax, np)
                except Exception as e:
                    record["result_error"] = f"{var} cannot be compared: {type(e).__name__}: {e}"
            else:
                record["result_error"] = f"the program assigns no module-level {var}"
        _restore(jax, before)
        record["seconds"] = time.perf_counter() - start
        emit(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
