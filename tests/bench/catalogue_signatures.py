"""Write the catalogue's signatures, read from the installed jax and numpy by ``inspect``.

Not a test: run it with jax installed when the pinned jax changes, then commit the result:

    python tests/bench/catalogue_signatures.py   # writes jaxlint/model/catalogue/signatures.py

Linting never imports jax: the catalogue reads the signatures from that generated file.
``tests/model/test_catalogue.py`` checks that the file still says what ``inspect`` says.
Each public function (and class) of the namespaces below gets one entry: a tuple of
parameters ``(name, kind)`` or ``(name, kind, default)`` (kind: 0 positional-only, 1
positional-or-keyword, 2 ``*args``, 3 keyword-only, 4 ``**kwargs``). A default is the
plain Python constant it is; ``E("builtins.float")`` for a type or dtype (``float``,
``jnp.float32``); ``U`` for anything else (a sentinel, a function). NumPy's "no value"
sentinel reads as ``None``, which is what it means. Attributes of arrays (``x.T``,
``x.shape``) are listed in ``ATTRIBUTES``; ``x.at[i].set(v)`` and its siblings are
``jax.Array.at.set``... with ``self`` standing for ``x.at[i]``;
``jax.nn.initializers.Initializer.__call__`` is the function an initializer factory
(``jax.nn.initializers.normal(0.02)``) returns.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "jaxlint", "model", "catalogue", "signatures.py")
DEFINITIONS_OUT = os.path.join(ROOT, "jaxlint", "base", "definitions.py")

MODULES = {
    "jax.numpy": "jax.numpy",
    "jax.numpy.linalg": "jax.numpy.linalg",
    "jax.numpy.fft": "jax.numpy.fft",
    "jax.lax": "jax.lax",
    "jax.lax.linalg": "jax.lax.linalg",
    "jax.random": "jax.random",
    "jax.nn": "jax.nn",
    "jax.nn.initializers": "jax.nn.initializers",
    "jax.tree": "jax.tree",
    "jax.tree_util": "jax.tree_util",
    "numpy": "numpy",
    "numpy.linalg": "numpy.linalg",
    "numpy.fft": "numpy.fft",
    "numpy.random": "numpy.random",
    "numpy.testing": "numpy.testing",
}

# top-level jax functions: the transforms and the calls that run a function
# (jaxlint/model/transforms.py), the device functions, meshes and name scopes
TOP_LEVEL = (
    "jax.device_count",
    "jax.local_device_count",
    "jax.devices",
    "jax.local_devices",
    "jax.device_put",
    "jax.device_get",
    "jax.named_scope",
    "jax.ensure_compile_time_eval",
    "jax.profiler.annotate_function",
    "jax.sharding.Mesh",
    "jax.sharding.AbstractMesh",
    "jax.make_mesh",
)


def top_level() -> list[str]:
    """The qualified names of TOP_LEVEL and of the transform table's entries that this jax
    has (a name it no longer has is left out: jaxlint keeps what it knows of it apart)."""
    sys.path.insert(0, ROOT)
    from jaxlint.model.transforms import TABLE

    names = [q for q, a in TABLE.items() if a.kind != "removed" and not q.startswith(tuple(MODULES))]
    return sorted({*names, *TOP_LEVEL})


KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: 0,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: 1,
    inspect.Parameter.VAR_POSITIONAL: 2,
    inspect.Parameter.KEYWORD_ONLY: 3,
    inspect.Parameter.VAR_KEYWORD: 4,
}


def default_code(x: Any) -> str:
    """The source text of a default in the generated file."""
    import numpy as np

    if x is np._NoValue:
        return "None"
    plain = (bool, int, float, complex, str, bytes)
    if x is None or type(x) in plain:
        return repr(x)
    if type(x) is tuple and all(type(e) in plain or e is None for e in x):
        return repr(x)
    if isinstance(x, type):
        mod = x.__module__
        if mod == "builtins":
            return f"E('builtins.{x.__name__}')"
        if mod.startswith("numpy"):
            return f"E('numpy.{x.__name__}')"
    if isinstance(x, np.dtype):
        return f"E('numpy.{x.name}')"
    name = getattr(x, "__name__", None)
    if type(x).__name__ == "_ScalarMeta" and name:
        return f"E('jax.numpy.{name}')"
    return "U"


def encode(sig: inspect.Signature, drop_self: bool = False) -> str:
    params = list(sig.parameters.values())
    out = []
    for p in params:
        kind = KINDS[p.kind]
        if p.default is inspect.Parameter.empty:
            out.append(f"({p.name!r}, {kind})")
        else:
            out.append(f"({p.name!r}, {kind}, {default_code(p.default)})")
    return "(" + "".join(o + ", " for o in out) + ")"


def signature_of(obj: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def functions() -> tuple[dict[str, str], list[str]]:
    import jax
    import numpy as np
    from jax._src.numpy import array_methods

    entries: dict[str, str] = {}
    attributes: list[str] = []
    for prefix, modname in MODULES.items():
        mod = importlib.import_module(modname)
        for name in sorted(dir(mod)):
            if name.startswith("_"):
                continue
            obj = getattr(mod, name, None)
            if obj is None or inspect.ismodule(obj) or not callable(obj):
                continue
            sig = signature_of(obj)
            if sig is not None:
                entries[f"{prefix}.{name}"] = encode(sig)
    for prefix, cls in (("jax.Array", jax.Array), ("numpy.ndarray", np.ndarray)):
        for name in [*sorted(n for n in dir(cls) if not n.startswith("_")), "__getitem__"]:
            obj = getattr(cls, name)
            if isinstance(obj, property) or inspect.isgetsetdescriptor(obj) or inspect.ismemberdescriptor(obj):
                attributes.append(f"{prefix}.{name}")
                continue
            sig = signature_of(obj)
            if sig is not None and callable(obj):
                entries[f"{prefix}.{name}"] = encode(sig)
    for q in top_level():
        modname, _, name = q.rpartition(".")
        try:
            obj = getattr(importlib.import_module(modname), name)
        except (ImportError, AttributeError):  # removed from this jax (or needs a test-only dependency)
            continue
        sig = signature_of(obj)
        if sig is not None:
            entries[q] = encode(sig)
    # what an initializer factory (jax.nn.initializers.normal(...)) returns, called
    entries["jax.nn.initializers.Initializer.__call__"] = encode(inspect.signature(jax.nn.initializers.normal()))
    ref = array_methods._IndexUpdateRef
    for name in sorted(n for n in dir(ref) if not n.startswith("_")):
        sig = signature_of(getattr(ref, name))
        if sig is not None:
            entries[f"jax.Array.at.{name}"] = encode(sig)
    return entries, sorted(attributes)


def definitions(public: list[str]) -> dict[str, str]:
    """Where jax's private modules hold each public function of ``public``:
    ``jax._src.api.vmap`` for ``jax.vmap``, ``jax._src.numpy.lax_numpy.zeros`` for
    ``jax.numpy.zeros`` (code that imports from there, as JAX's own source and tests do,
    calls the same function). Read off the loaded ``jax._src`` modules' attributes, so
    every path is importable; one public name per object (the shortest, then the first)."""
    objects: dict[int, str] = {}
    for q in sorted(public, key=lambda q: (len(q), q)):
        if not q.startswith("jax.") or q.startswith("jax.Array."):
            continue
        modname, _, name = q.rpartition(".")
        try:
            obj = getattr(importlib.import_module(modname), name)
        except (ImportError, AttributeError):
            continue
        if callable(obj):
            objects.setdefault(id(obj), q)
    out: dict[str, str] = {}
    for modname in sorted(m for m in sys.modules if m.startswith("jax._src")):
        mod = sys.modules[modname]
        for name, obj in sorted(vars(mod).items()) if mod is not None else ():
            q = objects.get(id(obj))
            if q is not None and not name.startswith("_") and f"{modname}.{name}" != q:
                out[f"{modname}.{name}"] = q
    return out


def main() -> None:
    import jax
    import numpy as np

    entries, attributes = functions()
    lines = [
        f'"""Signatures of jax {jax.__version__} and numpy {np.__version__}, generated by',
        "tests/bench/catalogue_signatures.py (its docstring says how to read them): do not edit.",
        '"""',
        "",
        "from typing import Any",
        "",
        "from .encoding import E, U",
        "",
        f'JAX_VERSION = "{jax.__version__}"',
        f'NUMPY_VERSION = "{np.__version__}"',
        "",
        "# fmt: off",
        "SIGNATURES: dict[str, tuple[tuple[Any, ...], ...]] = {",
    ]
    lines += [f"    {q!r}: {code}," for q, code in sorted(entries.items())]
    lines += ["}", "", "ATTRIBUTES: frozenset[str] = frozenset({"]
    lines += [f"    {q!r}," for q in attributes]
    lines += ["})", "# fmt: on", ""]
    with open(OUT, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))
    print(f"{OUT}: {len(entries)} signatures, {len(attributes)} attributes")
    found = definitions(list(entries))
    lines = [
        f'"""Where jax {jax.__version__} defines its public functions, generated by',
        "tests/bench/catalogue_signatures.py: do not edit. A name imported from the defining",
        "module (``from jax._src.api import vmap``) is the public function (``jax.vmap``).",
        '"""',
        "",
        "# fmt: off",
        "DEFINED_AT: dict[str, str] = {",
    ]
    lines += [f"    {k!r}: {v!r}," for k, v in found.items()]
    lines += ["}", "# fmt: on", ""]
    with open(DEFINITIONS_OUT, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))
    print(f"{DEFINITIONS_OUT}: {len(found)} definitions")


if __name__ == "__main__":
    sys.exit(main())
