"""``jax.lax``: elementwise primitives (equal shapes, no rank broadcasting), shape
operations, slicing, reductions over ``axes``, contractions, control flow and collectives."""

from __future__ import annotations

from ..abstract import Const
from . import contractions as c
from . import control as cf
from . import primitives as pr
from . import reductions as red
from . import register
from . import windows as win
from .build import Entries, family
from .creation import full, like
from .joining import broadcast_shapes_value
from .rules import COMPLEX, boolean, constant_result, create, identity, inexact, opaque, real_of, ufunc

LAX = ("jax.lax",)

UNARY_SAME = [
    "abs",
    "neg",
    "sign",
    "floor",
    "ceil",
    "round",
    "conj",
    "square",
    "bitwise_not",
    "population_count",
    "clz",
]
UNARY_INEXACT = [
    "exp",
    "exp2",
    "log",
    "log1p",
    "expm1",
    "sqrt",
    "rsqrt",
    "cbrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "logistic",
    "erf",
    "erfc",
    "erf_inv",
    "lgamma",
    "digamma",
    "bessel_i0e",
    "bessel_i1e",
    "reciprocal",
]
BINARY = [
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "pow",
    "max",
    "min",
    "nextafter",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "shift_left",
    "shift_right_logical",
    "shift_right_arithmetic",
    "atan2",
    "igamma",
    "igammac",
]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]
COLLECTIVES = ["psum", "pmean", "pmax", "pmin", "ppermute", "pshuffle", "pcast", "pbroadcast", "pswapaxes"]

TABLE: Entries = {
    **family(LAX, UNARY_SAME, ufunc, nin=1),
    **family(LAX, UNARY_INEXACT, ufunc, nin=1, result=inexact),
    **family(LAX, ["real", "imag"], ufunc, nin=1, result=real_of),
    **family(LAX, ["is_finite"], ufunc, nin=1, result=boolean),
    **family(LAX, ["conj"], ufunc, nin=1, result=lambda d: COMPLEX),
    **family(LAX, ["integer_pow"], ufunc, nin=1, static=("y",)),
    **family(LAX, BINARY, pr.lax_binary),
    **family(LAX, COMPARE, pr.lax_binary, result="bool"),
    **family(LAX, ["complex"], pr.lax_binary, result="complex"),
    **family(LAX, ["select"], pr.select),
    **family(LAX, ["clamp"], pr.clamp),
    **family(LAX, ["convert_element_type", "bitcast_convert_type"], pr.convert, static=("new_dtype",)),
    **family(LAX, ["reduce_precision"], pr.same_as, static=("exponent_bits", "mantissa_bits")),
    # shapes
    **family(LAX, ["broadcast"], pr.lax_broadcast, static=("sizes",)),
    **family(LAX, ["broadcast_in_dim"], pr.broadcast_in_dim, static=("shape", "broadcast_dimensions")),
    **family(LAX, ["iota"], pr.iota, static=("dtype", "size")),
    **family(LAX, ["broadcasted_iota"], pr.broadcasted_iota, static=("dtype", "shape", "dimension")),
    **family(LAX, ["full"], full, static=("shape", "dtype")),
    **family(LAX, ["full_like"], like, param="x", static=("dtype", "shape")),
    **family(LAX, ["reshape"], pr.lax_reshape, static=("new_sizes", "dimensions")),
    **family(LAX, ["squeeze"], pr.lax_squeeze, static=("dimensions",)),
    **family(LAX, ["expand_dims"], pr.lax_expand_dims, static=("dimensions",)),
    **family(LAX, ["transpose"], pr.lax_transpose, static=("permutation",)),
    **family(LAX, ["rev"], pr.same_as, static=("dimensions",)),
    **family(LAX, ["pad"], pr.lax_pad, static=("padding_config",)),
    **family(LAX, ["concatenate"], pr.lax_concatenate, static=("dimension",)),
    **family(LAX, ["broadcast_shapes"], broadcast_shapes_value),
    # slicing
    **family(LAX, ["slice"], pr.lax_slice, static=("start_indices", "limit_indices", "strides")),
    **family(LAX, ["dynamic_slice"], pr.dynamic_slice, static=("slice_sizes",)),
    **family(LAX, ["dynamic_update_slice", "dynamic_update_slice_in_dim", "dynamic_update_index_in_dim"], pr.same_as),
    **family(LAX, ["dynamic_slice_in_dim"], pr.in_dim, size="slice_size", static=("slice_size", "axis")),
    **family(LAX, ["dynamic_index_in_dim", "index_in_dim"], pr.in_dim, static=("axis", "keepdims")),
    **family(LAX, ["slice_in_dim"], pr.slice_in_dim, static=("start_index", "limit_index", "stride", "axis")),
    # reductions
    **family(LAX, ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"], pr.reduce_axes, static=("axes",)),
    **family(LAX, ["reduce_and", "reduce_or", "reduce_xor"], pr.reduce_axes, static=("axes",)),
    **family(LAX, ["argmax", "argmin"], pr.lax_argmax, static=("axis", "index_dtype")),
    **family(
        LAX,
        ["cumsum", "cumprod", "cumlogsumexp", "cummax", "cummin"],
        red.cumulative,
        param="operand",
        static=("axis", "reverse"),
    ),
    **family(LAX, ["top_k"], pr.top_k, static=("k",)),
    **family(LAX, ["sort"], pr.lax_sort, static=("dimension", "is_stable", "num_keys")),
    **family(LAX, ["sort_key_val"], pr.sort_key_val, static=("dimension", "is_stable")),
    # contractions
    **family(LAX, ["dot_general"], c.dot_general, static=("dimension_numbers", "precision", "preferred_element_type")),
    **family(LAX, ["dot"], c.lax_dot, static=("precision", "preferred_element_type")),
    # control flow
    **family(LAX, ["cond"], cf.cond),
    **family(LAX, ["switch"], cf.switch),
    **family(LAX, ["fori_loop"], cf.fori_loop, static=("unroll",)),
    **family(LAX, ["while_loop"], cf.while_loop),
    **family(LAX, ["scan"], cf.scan, static=("length", "reverse", "unroll")),
    **family(LAX, ["map"], cf.lax_map, static=("batch_size",)),
    **family(LAX, ["associative_scan"], cf.associative_scan, static=("reverse", "axis")),
    # collectives and the rest
    **family(LAX, COLLECTIVES, cf.collective, static=("axis_name",)),
    **family(LAX, ["all_gather"], cf.all_gather, static=("axis_name", "axis", "tiled")),
    **family(LAX, ["psum_scatter"], cf.psum_scatter, static=("axis_name", "scatter_dimension", "tiled")),
    **family(LAX, ["all_to_all"], cf.all_to_all, static=("axis_name", "split_axis", "concat_axis", "tiled")),
    **family(LAX, ["axis_index"], cf.axis_index, static=("axis_name",)),
    **family(LAX, ["axis_size"], cf.axis_size, static=("axis_name",)),
    **family(LAX, ["stop_gradient"], identity, param="x"),
    **family(LAX, ["optimization_barrier"], identity, param="operand"),
    **family(LAX, ["with_sharding_constraint"], identity, param="x"),
    **family(LAX, ["empty"], create, static=("shape", "dtype")),
    **family(LAX, ["dtype"], opaque),
    # windows and the calls that give an operand's shape
    **family(
        LAX,
        ["conv_general_dilated", "conv", "conv_with_general_padding"],
        win.conv,
        static=("window_strides", "padding", "lhs_dilation", "rhs_dilation", "dimension_numbers"),
    ),
    **family(LAX, ["reduce_window"], win.reduce_window, static=("window_dimensions", "window_strides", "padding")),
    **family(LAX, ["custom_linear_solve", "linalg.tridiagonal_solve"], win.operand_like, param="b"),
    **family(LAX, ["custom_root"], win.operand_like, param="initial_guess"),
    **family(LAX, ["select_n"], win.select_n),
    **family(LAX, ["split"], win.lax_split, static=("sizes", "axis")),
    **family(LAX, ["reduce"], win.lax_reduce, static=("computation", "dimensions")),
    **family(LAX, ["platform_dependent"], win.platform_dependent),
    **family(LAX, ["ragged_dot"], win.ragged_dot),
    **family(LAX, ["gather"], win.gather, static=("dimension_numbers", "slice_sizes")),
    **family(
        LAX,
        ["conv_general_dilated_patches"],
        win.patches,
        static=("filter_shape", "window_strides", "padding", "dimension_numbers"),
    ),
    **family(LAX, ["fft"], win.lax_fft, static=("fft_type", "fft_lengths")),
    **family(LAX, ["rng_bit_generator"], win.rng_bit_generator, static=("shape", "dtype", "algorithm")),
    **family(LAX, ["scaled_dot"], win.scaled_dot, static=("dimension_numbers", "preferred_element_type")),
    **family(LAX, ["Tolerance", "RaggedDotDimensionNumbers", "padtype_to_pads", "create_token"], opaque),
    **family(LAX, ["approx_max_k", "approx_min_k"], pr.top_k, axis="reduction_dimension", static=("k",)),
    **family(LAX, ["rng_uniform"], pr.rng_uniform, static=("shape",)),
    **family(LAX, ["broadcast_to_rank"], pr.broadcast_to_rank, static=("rank",)),
    **family(LAX, ["dce_sink"], constant_result(Const(None))),
    **family(LAX, ["ScatterDimensionNumbers", "GatherDimensionNumbers", "ConvDimensionNumbers"], opaque),
}

register(TABLE)
