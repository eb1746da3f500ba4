"""What kind of value a JAX or NumPy call, method or annotation gives: a JAX array, a NumPy
array, the pytree it was given, or something else.

Why: whether a name holds a JAX array is a question of JAX's API, not of one rule: ``jnp.zeros``
makes one, ``jnp.shape`` does not, ``np.zeros`` makes a NumPy array, ``lax.psum`` gives back
the pytree it was given, ``x.sum()`` and ``x.at[i].set(v)`` of an array are arrays, and
jax's own source calls the same functions by their private names (``jax._src.numpy``).
A rule follows values along its own paths (``flow.py``) and asks here what a step makes.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import libcst as cst

from .abstract import Array, External
from .annotations import annotated_value

if TYPE_CHECKING:
    from .evaluate import Evaluator

# jax.numpy functions that return Python values or dtypes, not arrays
NOT_ARRAY = frozenset(
    [
        "shape",
        "ndim",
        "size",
        "dtype",
        "result_type",
        "issubdtype",
        "isdtype",
        "iscomplexobj",
        "isrealobj",
        "isscalar",
        "finfo",
        "iinfo",
        "promote_types",
        "can_cast",
        "broadcast_shapes",
        "get_printoptions",
        "printoptions",
        "set_printoptions",
        "save",
        "savez",
        "load",
        "axis_size",
    ]
)
# jax.numpy functions that return a list or tuple of arrays: ``parts = jnp.split(x, 3)``
# then ``parts[0] = ...`` edits a Python list
SEQUENCE_RESULTS = frozenset(
    [
        "split",
        "array_split",
        "hsplit",
        "vsplit",
        "dsplit",
        "meshgrid",
        "broadcast_arrays",
        "unstack",
        "nonzero",
        "divmod",
        "frexp",
        "modf",
        "histogram",
        "histogram2d",
        "histogramdd",
        "gradient",
        "unravel_index",
        "tril_indices",
        "triu_indices",
        "diag_indices",
        "tril_indices_from",
        "triu_indices_from",
        "diag_indices_from",
        "mask_indices",
    ]
)
LAX_CONTROL = frozenset(
    [
        "scan",
        "cond",
        "switch",
        "while_loop",
        "fori_loop",
        "map",
        "associative_scan",
        "custom_root",
        "custom_linear_solve",
    ]
)
# jax.lax functions that take and return whole pytrees (a dict stays a dict)
LAX_PYTREE = frozenset(
    [
        "stop_gradient",
        "with_sharding_constraint",
        "psum",
        "pmean",
        "pmax",
        "pmin",
        "all_gather",
        "ppermute",
        "all_to_all",
        "psum_scatter",
        "optimization_barrier",
        "pcast",
        "pvary",
        "reduce",
        "tie_in",
    ]
)
# modules whose functions return JAX arrays (but for the lists above)
ARRAY_MODULES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.random.")
TREE_MODULES = ("jax.tree.", "jax.tree_util.")
TREE_LEAVES = frozenset(["leaves", "flatten", "tree_leaves", "tree_flatten"])  # what gives a pytree's leaves
# methods and attributes of an array that return an array
ARRAY_METHODS = frozenset(
    [
        "sum",
        "mean",
        "max",
        "min",
        "prod",
        "std",
        "var",
        "any",
        "all",
        "argmax",
        "argmin",
        "astype",
        "reshape",
        "ravel",
        "flatten",
        "squeeze",
        "transpose",
        "clip",
        "round",
        "cumsum",
        "cumprod",
        "dot",
        "copy",
        "conj",
        "swapaxes",
        "take",
        "repeat",
    ]
)
ARRAY_ATTRS = frozenset({"T", "real", "imag", "mT"})
# ``x.at[i].<method>(...)``: the functional updates
AT_METHODS = {"set", "add", "multiply", "divide", "power", "min", "max", "subtract", "apply", "get"}


def qualified(ev: Evaluator, expr: cst.BaseExpression) -> str | None:
    """The public name of the library object ``expr`` evaluates to (an ``External``:
    ``jnp.zeros`` -> ``jax.numpy.zeros``, also through local aliases), or None."""
    v = ev.value(expr, None)
    return v.qualified if type(v) is External else None  # the binder gives public names (base/definitions.py)


def annotated_array(ev: Evaluator, ann: cst.BaseExpression) -> bool:
    """Does the annotation promise a JAX array: ``jax.Array``, ``jnp.ndarray``, jaxtyping's
    ``Array`` or ``Float[Array, "n"]`` (not ``Float[np.ndarray, ...]``, not ``np.ndarray``)?
    The model's reading of annotations (``annotations.annotated_value``)."""
    v = annotated_value(ev, ann, "<annotation>", "<annotation>", ann)
    return type(v) is Array and not v.host


def made_by(ev: Evaluator, call: cst.Call) -> str | None:
    """What a call of a library function makes: "array" (a JAX array), "numpy" (a NumPy
    value), "pytree" (its arguments' structure) or None. The abstract value of the call
    decides where the model computes one (``np.array(jnp.zeros(3))`` is a NumPy array,
    ``jax.device_put(a)`` a JAX one); else what the API promises (``call_kind``)."""
    q = qualified(ev, call.func)
    if q is None:
        return None
    v = ev.value(call, None)
    if type(v) is Array:
        return "numpy" if v.host else "array"
    return call_kind(q)


def call_kind(q: str) -> str | None:
    """What a call of the function named ``q`` (public name) returns: "array" (a JAX array),
    "numpy" (a NumPy value), "pytree" (its arguments' structure, a dict stays a dict), or
    None (a Python value, a dtype, a control-flow primitive, or unknown)."""
    if q.startswith("numpy."):
        return "numpy"
    if q.startswith(TREE_MODULES):
        # the leaves of a pytree: the argument's own leaves (traced ones stay traced); what a
        # ``tree.map`` gives is what its function makes of them (``x.shape``: no array)
        return "pytree" if q.rsplit(".", 1)[1] in TREE_LEAVES else None
    if not q.startswith(ARRAY_MODULES):
        return None
    last = q.rsplit(".", 1)[1]
    if last in NOT_ARRAY or (q.startswith("jax.lax.") and last in LAX_CONTROL):
        return None
    if q.startswith("jax.numpy.") and last in SEQUENCE_RESULTS:
        return None  # a list or tuple of arrays
    if q.startswith("jax.lax.") and last in LAX_PYTREE:
        return "pytree"
    return "array"


# jax.numpy functions that accept a list or tuple of arrays (every other one raises on a list);
# the ``*_like`` ones read only ``.shape``/``.dtype`` and accept lists and Refs too
TAKES_SEQUENCES = frozenset(
    [
        "array",
        "asarray",
        "stack",
        "concatenate",
        "hstack",
        "vstack",
        "dstack",
        "column_stack",
        "row_stack",
        "block",
        "einsum",
        "meshgrid",
        "broadcast_arrays",
        "ix_",
        "select",
        "piecewise",
        "concat",
        "unstack",
        "from_dlpack",
        "frombuffer",
        "fromiter",
    ]
)
# jax.numpy functions that read only the ``.shape`` and ``.dtype`` of their argument: they
# take anything that has them (a ``jax.ShapeDtypeStruct``, a ``Ref``)
SHAPE_ONLY = frozenset(["zeros_like", "ones_like", "empty_like", "full_like"])


def rejects_sequences(q: str) -> bool:
    """Does the ``jax.numpy`` function named ``q`` (public name) raise when given a list, a
    tuple or a ``Ref`` (JAX's ``check_arraylike``)? Every one does but those that return
    Python values (``NOT_ARRAY``), take sequences (``TAKES_SEQUENCES``) or read only the
    shape and dtype (``SHAPE_ONLY``)."""
    if not q.startswith("jax.numpy."):
        return False
    last = q.rsplit(".", 1)[1]
    return last not in NOT_ARRAY and last not in TAKES_SEQUENCES and last not in SHAPE_ONLY


@cache
def array_only_members() -> frozenset[str]:
    """The attributes and methods that only an array has: those the catalogue gives a JAX
    array (``jax.Array.shape``, ``jax.Array.sum``, ``jax.Array.at``), but those Python's
    containers have too (``xs.copy()``, ``xs.sort()``, ``xs[i]``)."""
    from .catalogue import TABLE

    python = {n for t in (list, tuple, dict, set, frozenset, str, bytes) for n in dir(t)}
    prefix = "jax.Array."
    return frozenset(q[len(prefix) :].split(".", 1)[0] for q in TABLE if q.startswith(prefix)) - python


def at_method(name: str) -> bool:
    """Is ``x.at[i].<name>(...)`` one of the catalogue's functional updates or reads of a JAX
    array (``set``, ``add``, ``get``, ...)?"""
    from .catalogue import TABLE

    return f"jax.Array.at.{name}" in TABLE


def at_update(name: str) -> bool:
    """Is ``x.at[i].<name>(v)`` a functional update (``set``, ``add``...), not the read ``get``?"""
    from .catalogue import lookup
    from .catalogue.indexing import at_update as rule

    op = lookup(f"jax.Array.at.{name}")
    return op is not None and op.result is rule
