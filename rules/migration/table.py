"""The API-migration catalogue: one row per removed or deprecated JAX name, keyword or call form.

Built from ``shared/reference/jax-behaviour.md`` Part 2 (jax 0.10.2, checked by running) and
the ``_deprecations`` tables of the installed jax 0.10.2. It drives JAX801 (removed by the
target version) and JAX802 (deprecated, still present in the target version).

``kind``:
- ``rename``: the old name is a pure alias of ``replacement`` (a fix rewrites the reference
  and ``from`` imports).
- ``module``: a module moved; ``old.x`` becomes ``replacement.x`` (fix as for ``rename``).
- ``call``: an exact call rewrite done by the handler named in ``rewrite``.
- ``keyword``: a keyword argument of ``old`` was renamed (``new_keyword``), dropped
  (``new_keyword`` None and ``fix``), or became positional (``position``).
- ``positional``: ``old`` accepts at most ``max_positional`` positional arguments; the
  extra ones become the keywords in ``then_keywords`` (no fix when it is empty).
- ``config``: ``jax.config.update(old, ...)`` with a removed config option.
- ``manual``: semantics differ; the message names the replacement, no fix.
"""

from __future__ import annotations

from dataclasses import dataclass

from jaxlint.base.types import Applicability

CHANGELOG = "https://docs.jax.dev/en/latest/changelog.html"


@dataclass(frozen=True)
class Entry:
    old: str
    replacement: str | None
    deprecated: str | None
    removed: str | None
    kind: str  # rename | module | call | keyword | positional | config | manual
    note: str = ""
    fix: Applicability | None = "safe"  # of the fix; None = message only
    since: str | None = None  # first jax version that has ``replacement``
    alt: str | None = None  # replacement before ``since``, and for ``from`` imports
    keyword: str | None = None  # kind "keyword": the old keyword
    new_keyword: str | None = None
    position: int | None = None  # kind "keyword": the keyword became this positional argument
    max_positional: int | None = None  # kind "positional"
    then_keywords: tuple[str, ...] = ()
    rewrite: str | None = None  # kind "call": the handler
    only: str | None = None  # "annotation" | "with": the fix is offered only there
    imports_only: bool = False  # only imports of the module are affected (``jax.config``)
    removed_by: bool = False  # ``removed`` is the first version seen without it, not the exact one
    reference: str = CHANGELOG


def _e(*args, **kw) -> Entry:
    return Entry(*args, **kw)


_TREE = "https://docs.jax.dev/en/latest/jax.tree.html"
_SHARD = "https://docs.jax.dev/en/latest/notebooks/shard_map.html"
_PMAP = "https://docs.jax.dev/en/latest/migrate_pmap.html"
_EXT = "https://docs.jax.dev/en/latest/jax.extend.html"
_AT = "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html"

ENTRIES: tuple[Entry, ...] = (
    # tree utilities
    _e(
        "jax.tree_map",
        "jax.tree.map",
        "0.4.26",
        "0.6.0",
        "rename",
        since="0.4.25",
        alt="jax.tree_util.tree_map",
        reference=_TREE,
    ),
    _e(
        "jax.tree_flatten",
        "jax.tree.flatten",
        "0.3.15",
        "0.6.0",
        "rename",
        since="0.4.25",
        alt="jax.tree_util.tree_flatten",
        reference=_TREE,
    ),
    _e(
        "jax.tree_leaves",
        "jax.tree.leaves",
        "0.3.15",
        "0.6.0",
        "rename",
        since="0.4.25",
        alt="jax.tree_util.tree_leaves",
        reference=_TREE,
    ),
    _e(
        "jax.tree_unflatten",
        "jax.tree.unflatten",
        "0.3.15",
        "0.6.0",
        "rename",
        since="0.4.25",
        alt="jax.tree_util.tree_unflatten",
        reference=_TREE,
    ),
    _e(
        "jax.tree_structure",
        "jax.tree.structure",
        "0.3.15",
        "0.6.0",
        "rename",
        since="0.4.25",
        alt="jax.tree_util.tree_structure",
        reference=_TREE,
    ),
    _e(
        "jax.tree_transpose",
        "jax.tree.transpose",
        "0.3.15",
        "0.6.0",
        "rename",
        since="0.4.25",
        alt="jax.tree_util.tree_transpose",
        reference=_TREE,
    ),
    _e("jax.treedef_is_leaf", "jax.tree_util.treedef_is_leaf", "0.3.15", "0.6.0", "rename", reference=_TREE),
    _e("jax.tree_util.tree_multimap", "jax.tree_util.tree_map", "0.3.5", "0.3.16", "rename", reference=_TREE),
    _e(
        "jax.tree_util.build_tree",
        "jax.tree.unflatten",
        "0.6.0",
        "0.10.2",
        "manual",
        "`build_tree(treedef, xs)` takes nested xs, `unflatten(treedef, leaves)` takes flat leaves",
        removed_by=True,
    ),
    _e(
        "jax.tree_util.register_keypaths",
        "jax.tree_util.register_pytree_with_keys",
        "0.4.6",
        "0.4.24",
        "manual",
        "the key-path registration API changed",
    ),
    _e("jax.tree_util.AttributeKeyPathEntry", "jax.tree_util.GetAttrKey", "0.4.6", "0.4.24", "manual"),
    _e(
        "jax.tree_util.GetitemKeyPathEntry",
        "`jax.tree_util.SequenceKey` / `jax.tree_util.DictKey`",
        "0.4.6",
        "0.4.24",
        "manual",
    ),
    # mapping, parallelism and sharding
    _e(
        "jax.experimental.maps",
        "`jax.shard_map` or `jax.vmap(..., spmd_axis_name=...)`",
        "0.4.26",
        "0.4.31",
        "manual",
        "xmap has no drop-in replacement",
        reference=_SHARD,
    ),
    _e("jax.experimental.maps.Mesh", "jax.sharding.Mesh", "0.4.1", "0.4.11", "rename"),
    _e("jax.experimental.PartitionSpec", "jax.sharding.PartitionSpec", "0.4.1", "0.4.11", "rename"),
    _e("jax.experimental.pjit.PartitionSpec", "jax.sharding.PartitionSpec", "0.4.1", "0.4.11", "rename"),
    _e("jax.experimental.pjit.NamedSharding", "jax.sharding.NamedSharding", "0.4.1", "0.4.11", "rename"),
    _e("jax.interpreters.pxla.PartitionSpec", "jax.sharding.PartitionSpec", "0.4.1", "0.4.11", "rename"),
    _e("jax.interpreters.pxla.Mesh", "jax.sharding.Mesh", "0.4.1", "0.4.11", "rename"),
    _e(
        "jax.experimental.pjit.pjit",
        "jax.jit",
        "0.8.0",
        None,
        "manual",
        "`jax.jit` takes shardings by keyword only and ignores a `with mesh:` resource environment",
    ),
    _e(
        "jax.experimental.pjit.pjit",
        None,
        "0.4.9",
        "0.4.14",
        "keyword",
        keyword="in_axis_resources",
        new_keyword="in_shardings",
    ),
    _e(
        "jax.experimental.pjit.pjit",
        None,
        "0.4.9",
        "0.4.14",
        "keyword",
        keyword="out_axis_resources",
        new_keyword="out_shardings",
    ),
    _e(
        "jax.experimental.pjit.with_sharding_constraint",
        "jax.lax.with_sharding_constraint",
        "0.4.16",
        "0.10.2",
        "rename",
        removed_by=True,
    ),
    _e(
        "jax.experimental.pjit.with_sharding_constraint",
        None,
        None,
        "0.4.11",
        "keyword",
        keyword="axis_resources",
        new_keyword="shardings",
    ),
    _e(
        "jax.experimental.shard_map.shard_map",
        "jax.shard_map",
        "0.8.0",
        None,
        "manual",
        "the signature changed: `mesh`, `in_specs` and `out_specs` are keyword-only and `check_rep` is now `check_vma`",
        reference=_SHARD,
    ),
    # checked on jax 0.4.35 (where both still exist) and 0.10.2: the replacements give the
    # same arrays, shape (len(devices), *x.shape), sharded along that new leading axis
    _e(
        "jax.device_put_replicated",
        "`jax.device_put(jnp.stack([x] * len(devices)), NamedSharding(Mesh(np.array(devices), ('x',)), P('x')))`",
        "0.8.1",
        "0.10.0",
        "manual",
        "it keeps the leading device axis that a `pmap` over the result maps; `P()` without the stack would drop it;"
        " map it over a pytree with `jax.tree.map`",
        reference=_PMAP,
    ),
    _e(
        "jax.device_put_sharded",
        "`jax.device_put(jnp.stack(shards), NamedSharding(Mesh(np.array(devices), ('x',)), P('x')))`",
        "0.8.1",
        "0.10.0",
        "manual",
        "one shard per device along a new leading axis; for pytrees `jax.tree.map(lambda *xs: ..., *shards)`",
        reference=_PMAP,
    ),
    _e("jax.sharding.PmapSharding", "jax.NamedSharding", "0.8.1", "0.10.2", "manual", removed_by=True, reference=_PMAP),
    _e("jax.sharding.use_mesh", "jax.set_mesh", None, "0.7.1", "rename", only="with"),
    _e("jax.sharding.XLACompatibleSharding", "jax.sharding.Sharding", "0.4.29", "0.4.34", "rename"),
    _e("jax.sharding.MeshPspecSharding", "jax.sharding.NamedSharding", "0.3.24", "0.10.2", "rename", removed_by=True),
    _e(
        "jax.sharding.OpShardingSharding",
        "GSPMDSharding",
        "0.4.5",
        "0.4.12",
        "manual",
        "`GSPMDSharding` is no longer public; use `jax.sharding.NamedSharding`",
    ),
    _e("jax.experimental.shard", "jax.sharding", None, "0.7.0", "manual"),
    _e("jax.experimental.shard.reshard", "jax.sharding.reshard", None, "0.7.0", "rename"),
    _e("jax.experimental.shard.auto_axes", "jax.sharding.auto_axes", None, "0.7.0", "rename"),
    _e("jax.experimental.shard.explicit_axes", "jax.sharding.explicit_axes", None, "0.7.0", "rename"),
    _e("jax.lax.pvary", "jax.lax.pcast(x, axis_name, to='varying')", "0.8.2", "0.10.0", "call", rewrite="pvary"),
    _e("jax.soft_pmap", "jax.shard_map", None, "0.3.18", "manual"),
    _e("jax.experimental.sharded_jit", "jax.jit", "0.3.5", "0.10.2", "manual", removed_by=True),
    _e("jax_pmap_shmap_merge", None, "0.9.0", "0.10.0", "config", "delete the call", removed_by=True),
    _e("jax_pmap_no_rank_reduction", None, "0.9.0", "0.9.0", "config", "delete the call"),
    _e("jax_array", None, "0.4.7", "0.4.14", "config", "delete the call"),
    _e("jax_jit_pjit_api_merge", None, "0.4.7", "0.4.14", "config", "delete the call"),
    _e("jax.pmap", None, None, "0.4.8", "keyword", fix=None, keyword="global_arg_shapes"),
    # random
    _e(
        "jax.random.KeyArray",
        "jax.Array",
        "0.4.16",
        "0.4.24",
        "rename",
        "for `isinstance` checks use `jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)`",
        only="annotation",
    ),
    _e(
        "jax.random.PRNGKeyArray",
        "jax.Array",
        "0.4.16",
        "0.4.24",
        "rename",
        "for `isinstance` checks use `jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)`",
        only="annotation",
    ),
    _e(
        "jax.random.threefry2x32_key",
        "jax.random.PRNGKey(seed, impl='threefry2x32')",
        "0.4.17",
        "0.4.24",
        "call",
        rewrite="prng_impl",
    ),
    _e("jax.random.rbg_key", "jax.random.PRNGKey(seed, impl='rbg')", "0.4.17", "0.4.24", "call", rewrite="prng_impl"),
    _e(
        "jax.random.unsafe_rbg_key",
        "jax.random.PRNGKey(seed, impl='unsafe_rbg')",
        "0.4.17",
        "0.4.24",
        "call",
        rewrite="prng_impl",
    ),
    _e("jax.random.default_prng_impl", "jax.extend.random", "0.4.16", "0.4.24", "manual", reference=_EXT),
    _e("jax.random.threefry_2x32", "jax.extend.random.threefry_2x32", "0.4.16", "0.4.24", "manual", reference=_EXT),
    _e("jax.random.threefry2x32_p", "jax.extend.random.threefry2x32_p", "0.4.16", "0.4.24", "manual", reference=_EXT),
    _e("jax.random.shuffle", "jax.random.permutation(key, x, axis, independent=True)", None, "0.4.31", "manual"),
    # array types, callbacks and core internals
    _e("jax.numpy.DeviceArray", "jax.Array", "0.4.7", "0.4.14", "rename"),
    _e("jax.interpreters.pxla.ShardedDeviceArray", "jax.Array", "0.4.7", "0.4.14", "rename"),
    _e("jax.interpreters.xla.DeviceArray", "jax.Array", "0.4.4", "0.4.11", "rename"),
    _e("jax.interpreters.xla.Buffer", "jax.Array", "0.4.4", "0.4.11", "rename"),
    _e("jax.interpreters.xla.device_put", "jax.device_put", "0.4.7", "0.4.11", "rename"),
    _e("jax.interpreters.pxla.device_put", "jax.device_put", "0.4.7", "0.4.14", "rename"),
    _e(
        "jax.xla_computation",
        "jax.jit(fn).lower(*args).compiler_ir('hlo')",
        "0.4.30",
        "0.4.34",
        "call",
        fix="unsafe",
        rewrite="xla_computation",
    ),
    _e("jax.abstract_arrays", "jax.core", "0.4.12", "0.4.17", "manual"),
    _e("jax.abstract_arrays.ShapedArray", "jax.core.ShapedArray", "0.4.12", "0.4.16", "rename"),
    _e(
        "jax.lax.tie_in",
        "`y` (its second argument)",
        "0.4.24",
        "0.4.29",
        "call",
        "`tie_in` has been a no-op since JAX 0.2.0",
        rewrite="tie_in",
    ),
    _e(
        "jax.experimental.host_callback",
        "`jax.debug.callback` / `jax.debug.print` / `jax.pure_callback` / `jax.experimental.io_callback`",
        "0.4.26",
        "0.8.0",
        "manual",
        "ordering and result-shape semantics differ",
    ),
    _e("jax.config", None, "0.4.25", "0.4.29", "module", "import `jax` and use `jax.config`", imports_only=True),
    _e("jax.config.config", "jax.config", None, "0.4.25", "rename"),
    _e("jax.linear_util", "jax.extend.linear_util", "0.4.16", "0.4.24", "module", reference=_EXT),
    _e("jax.prng", "jax.extend.random", "0.4.16", "0.4.24", "module", reference=_EXT),
    _e(
        "jax.clear_backends",
        "jax.clear_caches",
        "0.4.26",
        "0.4.36",
        "manual",
        "`clear_caches` does not reset the backends",
    ),
    _e("jax.ad_checkpoint.checkpoint", "jax.checkpoint", "0.8.2", "0.10.0", "rename"),
    _e("jax.ad_checkpoint.remat", "jax.remat", "0.8.2", "0.10.0", "rename"),
    _e("jax.core.get_aval", "jax.typeof", "0.8.2", "0.10.0", "rename", fix="unsafe"),
    *(
        _e(f"jax.core.{n}", f"jax.extend.core.{n}", "0.8.2", "0.10.0", "rename", reference=_EXT)
        for n in (
            "mapped_aval",
            "unmapped_aval",
            "set_current_trace",
            "take_current_trace",
            "TraceTag",
            "call_impl",
            "subjaxprs",
            "AbstractToken",
        )
    ),
    _e("jax.core.traverse_jaxpr_params", None, "0.8.2", "0.10.0", "manual", "it has no public replacement"),
    *(
        _e(f"jax.core.{n}", f"jax.extend.core.{n}", "0.10.0", None, "rename", reference=_EXT)
        for n in (
            "CallPrimitive",
            "DebugInfo",
            "DropVar",
            "Effect",
            "Effects",
            "check_jaxpr",
            "concrete_or_error",
            "find_top_trace",
            "gensym",
            "get_opaque_trace_state",
            "jaxprs_in_params",
            "new_jaxpr_eqn",
            "no_effects",
            "primal_dtype_to_tangent_dtype",
            "valid_jaxtype",
        )
    ),
    _e(
        "jax.core.InconclusiveDimensionOperation", "jax.errors.InconclusiveDimensionOperation", "0.10.0", None, "rename"
    ),
    _e("jax.core.JaxprTypeError", "jax.errors.JaxprTypeError", "0.10.0", None, "rename"),
    *(
        _e(f"jax.core.{n}", None, "0.10.0", None, "manual", "it has no public replacement")
        for n in (
            "nonempty_axis_env_DO_NOT_USE",
            "unsafe_am_i_under_a_jit_DO_NOT_USE",
            "unsafe_am_i_under_a_vmap_DO_NOT_USE",
            "unsafe_get_axis_names_DO_NOT_USE",
            "JaxprPpContext",
            "JaxprPpSettings",
            "OutputType",
            "abstract_token",
            "aval_mapping_handlers",
            "call",
            "concretization_function_error",
            "custom_typechecks",
            "is_concrete",
            "is_constant_dim",
            "is_constant_shape",
            "literalable_types",
            "no_axis_name",
            "pytype_aval_mappings",
            "trace_ctx",
        )
    ),
    *(
        _e(f"jax.interpreters.pxla.{n}", None, "0.8.2", None, "manual", "it has no public replacement")
        for n in (
            "Index",
            "MeshAxisName",
            "MeshComputation",
            "MeshExecutable",
            "global_aval_to_result_handler",
            "global_avals_to_results_handler",
            "global_result_handlers",
            "are_hlo_shardings_equal",
            "is_hlo_sharding_replicated",
            "op_sharding_to_indices",
            "ArrayMapping",
            "array_mapping_to_axis_resources",
        )
    ),
    _e(
        "jax.interpreters.pxla.thread_resources",
        "`with jax.set_mesh(mesh):` and `jax.sharding.get_abstract_mesh()`",
        "0.8.2",
        None,
        "manual",
    ),
    *(
        _e(
            f"jax.interpreters.pxla.{n}",
            None,
            None,
            "0.10.2",
            "manual",
            "it has no public replacement",
            removed_by=True,
        )
        for n in (
            "MapTracer",
            "PmapExecutable",
            "parallel_callable",
            "shard_args",
            "Chunked",
            "NoSharding",
            "Replicated",
            "ShardedAxis",
            "ShardingSpec",
            "Unstacked",
            "spec_to_indices",
        )
    ),
    _e(
        "jax.custom_derivatives.custom_jvp_call_jaxpr_p",
        None,
        "0.6.1",
        "0.8.0",
        "manual",
        "it has no public replacement",
    ),
    _e("jax.util", "`functools` / `itertools`", "0.6.0", "0.8.0", "manual"),
    _e("jax.extend.ffi", "jax.ffi", "0.5.0", "0.8.0", "module"),
    # jax.numpy, lax, scipy and nn
    _e("jax.numpy.alltrue", "jax.numpy.all", "0.4.12", "0.4.16", "rename"),
    _e("jax.numpy.sometrue", "jax.numpy.any", "0.4.12", "0.4.16", "rename"),
    _e("jax.numpy.product", "jax.numpy.prod", "0.4.12", "0.4.16", "rename"),
    _e("jax.numpy.cumproduct", "jax.numpy.cumprod", "0.4.12", "0.4.16", "rename"),
    _e("jax.numpy.NINF", "-jax.numpy.inf", "0.4.16", "0.4.24", "call", rewrite="constant"),
    _e("jax.numpy.PZERO", "0.0", "0.4.16", "0.4.24", "call", rewrite="constant"),
    _e("jax.numpy.NZERO", "-0.0", "0.4.16", "0.4.24", "call", rewrite="constant"),
    _e(
        "jax.numpy.issubsctype",
        "jax.numpy.issubdtype(x.dtype, t)",
        "0.4.16",
        "0.4.24",
        "manual",
        "`issubsctype` also accepted dtypes",
    ),
    _e("jax.numpy.row_stack", "jax.numpy.vstack", "0.4.16", "0.4.24", "rename"),
    _e(
        "jax.numpy.in1d",
        "jax.numpy.isin(a, b).ravel()",
        "0.4.16",
        "0.4.24",
        "manual",
        "`in1d` returned a flattened result",
    ),
    _e("jax.numpy.trapz", "jax.scipy.integrate.trapezoid", "0.4.16", "0.4.24", "rename"),
    _e("jax.numpy.msort", "jax.numpy.sort(a, axis=0)", "0.4.1", "0.4.9", "call", rewrite="msort"),
    _e("jax.numpy.round_", "jax.numpy.round", "0.4.32", "0.4.38", "rename"),
    _e("jax.numpy.fix", "jax.numpy.trunc", "0.9.0", "0.10.0", "rename"),
    _e(
        "jax.numpy.reshape",
        None,
        "0.4.28",
        "0.10.2",
        "keyword",
        keyword="newshape",
        new_keyword="shape",
        removed_by=True,
    ),
    _e("jax.numpy.clip", None, "0.4.27", "0.10.2", "keyword", keyword="a_min", new_keyword="min", removed_by=True),
    _e("jax.numpy.clip", None, "0.4.27", "0.10.2", "keyword", keyword="a_max", new_keyword="max", removed_by=True),
    _e("jax.numpy.clip", None, "0.4.27", "0.10.2", "keyword", keyword="a", position=0, removed_by=True),
    _e(
        "jax.numpy.sort",
        None,
        None,
        "0.4.28",
        "keyword",
        "use `stable=True` or `stable=False`",
        fix=None,
        keyword="kind",
    ),
    _e(
        "jax.numpy.argsort",
        None,
        None,
        "0.4.28",
        "keyword",
        "use `stable=True` or `stable=False`",
        fix=None,
        keyword="kind",
    ),
    _e("jax.numpy.where", None, "0.4.21", "0.4.27", "keyword", keyword="condition", position=0),
    _e("jax.numpy.where", None, "0.4.21", "0.4.27", "keyword", keyword="x", position=1),
    _e("jax.numpy.where", None, "0.4.21", "0.4.27", "keyword", keyword="y", position=2),
    _e(
        "jax.numpy.array",
        None,
        "0.10.2",
        None,
        "positional",
        max_positional=2,
        then_keywords=("copy", "order", "ndmin"),
    ),
    _e("jax.lax.zeros_like_array", "jax.numpy.zeros_like", "0.7.1", "0.10.2", "rename", removed_by=True),
    _e("jax.lax.infeed", None, "0.6.0", "0.7.0", "manual", "it has no replacement"),
    _e("jax.lax.outfeed", None, "0.6.0", "0.7.0", "manual", "it has no replacement"),
    _e(
        "jax.lax.dot",
        None,
        "0.7.1",
        "0.10.2",
        "positional",
        max_positional=2,
        then_keywords=("precision", "preferred_element_type"),
        removed_by=True,
    ),
    _e("jax.lax.prod", "math.prod", "0.4.11", "0.4.16", "rename"),
    _e(
        "jax.scipy.special.sph_harm",
        "jax.scipy.special.sph_harm_y",
        "0.7.0",
        "0.10.0",
        "manual",
        "the argument order changed: `sph_harm_y(n, m, theta, phi)`",
    ),
    _e("jax.scipy.special.lpmn", None, "0.5.0", None, "manual", "no replacement is planned"),
    _e("jax.scipy.special.lpmn_values", None, "0.5.0", None, "manual", "no replacement is planned"),
    _e("jax.scipy.linalg.tril", "jax.numpy.tril", "0.4.16", "0.4.24", "rename"),
    _e("jax.scipy.linalg.triu", "jax.numpy.triu", "0.4.16", "0.4.24", "rename"),
    _e(
        "jax.scipy.linalg.polar_unitary",
        "jax.scipy.linalg.polar",
        "0.3.11",
        "0.4.3",
        "manual",
        "`polar` returns the pair `(unitary, posdef)`",
    ),
    _e("jax.nn.normalize", "jax.nn.standardize", "0.3.5", "0.4.29", "rename"),
    _e("jax.nn.softmax", None, "0.4.27", "0.4.36", "keyword", "it had no effect", keyword="initial"),
    # misc modules, Array methods and the jit calling convention
    _e("jax.experimental.stax", "jax.example_libraries.stax", "0.2.25", "0.3.16", "module"),
    _e("jax.experimental.optimizers", "jax.example_libraries.optimizers", "0.2.25", "0.3.16", "module"),
    _e(
        "jax.experimental.export",
        "jax.export",
        "0.4.30",
        "0.4.36",
        "manual",
        "several functions were renamed, e.g. `lowering_platforms` is now `platforms`",
    ),
    _e("jax.experimental.array_api", "jax.numpy", "0.4.32", "0.5.0", "manual", "delete the import"),
    _e("jax.experimental.loops", None, "0.3.6", "0.3.16", "manual", "use `jax.lax.fori_loop` or `jax.lax.scan`"),
    _e("jax.experimental.callback", None, None, "0.4.2", "manual", "it has no replacement"),
    _e("jax.cloud_tpu_init", None, "0.8.1", None, "manual", "delete the import"),
    _e("jax.host_id", "jax.process_index", "0.2.13", None, "rename"),
    _e("jax.host_count", "jax.process_count", "0.2.13", None, "rename"),
    _e("jax.host_ids", "jax.process_indices", "0.2.13", None, "rename"),
    _e("jax.partial_eval", "jax.interpreters.partial_eval", None, "0.4.14", "module"),
    _e("jax.pxla", "jax.interpreters.pxla", None, "0.4.14", "module"),
    _e("jax.xla", "jax.interpreters.xla", None, "0.4.14", "module"),
    _e("jax.curry", "functools.partial", None, "0.4.14", "manual"),
    _e("jax.ShapedArray", "jax.core.ShapedArray", None, "0.4.14", "rename"),
    _e("jax.api", "jax", None, "0.2.22", "module"),
    _e("jax.partial", "functools.partial", None, "0.2.22", "rename"),
    _e("jax.util.partial", "functools.partial", None, "0.2.22", "rename"),
    _e("jax.ops.index_update", "x.at[idx].set(y)", "0.2.22", "0.3.2", "call", rewrite="index_update", reference=_AT),
    _e("jax.ops.index_add", "x.at[idx].add(y)", "0.2.22", "0.3.2", "call", rewrite="index_update", reference=_AT),
    _e("jax.ops.index_mul", "x.at[idx].multiply(y)", "0.2.22", "0.3.2", "call", rewrite="index_update", reference=_AT),
    _e("jax.ops.index_min", "x.at[idx].min(y)", "0.2.22", "0.3.2", "call", rewrite="index_update", reference=_AT),
    _e("jax.ops.index_max", "x.at[idx].max(y)", "0.2.22", "0.3.2", "call", rewrite="index_update", reference=_AT),
    _e("jax.jit", None, None, "0.7.0", "keyword", keyword="fun", position=0),
    _e(
        "jax.jit",
        None,
        None,
        "0.7.0",
        "positional",
        "pass the extra arguments by keyword: `in_shardings=` in JAX 0.4.x, `static_argnums=` before",
        max_positional=1,
    ),
    _e("jax.stages.OutInfo", "jax.ShapeDtypeStruct", None, "0.7.0", "rename"),
    _e(
        "jax.experimental.gda_serialization",
        "jax.experimental.array_serialization",
        "0.4.9",
        "0.10.2",
        "module",
        removed_by=True,
    ),
)

# How each call rewrite spells its result (the ``_method`` of the index_update family).
AT_METHOD = {
    "jax.ops.index_update": "set",
    "jax.ops.index_add": "add",
    "jax.ops.index_mul": "multiply",
    "jax.ops.index_min": "min",
    "jax.ops.index_max": "max",
}
PRNG_IMPL = {
    "jax.random.threefry2x32_key": "threefry2x32",
    "jax.random.rbg_key": "rbg",
    "jax.random.unsafe_rbg_key": "unsafe_rbg",
}

NAME_KINDS = ("rename", "module", "call", "manual")
BY_OLD: dict[str, list[Entry]] = {}
KEYWORDS: dict[str, list[Entry]] = {}
POSITIONAL: dict[str, list[Entry]] = {}
CONFIG: dict[str, Entry] = {}
for _entry in ENTRIES:
    if _entry.kind in NAME_KINDS:
        BY_OLD.setdefault(_entry.old, []).append(_entry)
    elif _entry.kind == "keyword":
        KEYWORDS.setdefault(_entry.old, []).append(_entry)
    elif _entry.kind == "positional":
        POSITIONAL.setdefault(_entry.old, []).append(_entry)
    elif _entry.kind == "config":
        CONFIG[_entry.old] = _entry

# Replacement modules that ``import jax`` does not load: a fix that spells a name inside
# one of them through ``jax.`` also adds ``import <module>``.
LAZY_MODULES = (
    "jax.example_libraries.optimizers",
    "jax.example_libraries.stax",
    "jax.experimental.array_serialization",
    "jax.extend.core",
    "jax.extend.linear_util",
    "jax.extend.random",
    "jax.scipy.integrate",
    "jax.scipy.linalg",
    "jax.scipy.special",
)

# Catalogue entries of kind "manual" that are modules (their members are affected too).
MODULES = frozenset(
    {
        "jax.experimental.maps",
        "jax.experimental.host_callback",
        "jax.abstract_arrays",
        "jax.util",
        "jax.experimental.shard",
        "jax.experimental.sharded_jit",
        "jax.experimental.export",
        "jax.experimental.array_api",
        "jax.experimental.loops",
        "jax.experimental.callback",
        "jax.cloud_tpu_init",
    }
)

# Last components that make a name worth resolving (a cheap pre-check per node).
LAST_NAMES = frozenset(e.old.rsplit(".", 1)[-1] for e in ENTRIES if e.kind in NAME_KINDS)
CALL_NAMES = frozenset(e.old.rsplit(".", 1)[-1] for e in ENTRIES if e.kind in ("keyword", "positional"))
TRIGGERS = tuple(sorted(LAST_NAMES | CALL_NAMES | {"config", "mesh"}))
