"""The program model: bindings, reaching definitions, values, call sites (exact answers)."""

from __future__ import annotations

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.model import External, Function, Parameter, Partial, Transformed

from .helpers import binding_lines, line_of, model_of, read_at, reads

REBOUND = """
import jax

def train_step(x):
    return jax.lax.psum(x, "i")

train_step = jax.pmap(train_step, axis_name="i")

def main(xs):
    return train_step(xs)
"""


def test_rebinding_inner_name_is_the_earlier_def_and_later_reads_the_transformed_value():
    p = model_of(REBOUND)
    assert binding_lines(p, "train_step", 7) == [4]
    assert binding_lines(p, "train_step", 10) == [7]
    v = p.value(read_at(p, "train_step", 10))
    assert type(v) is Transformed and v.api == "jax.pmap"
    assert type(v.target) is Function and v.target.name == "train_step"
    assert p.literal(v.keywords["axis_name"]) == "i"


def test_if_else_arms_merge_and_disagree():
    p = model_of("""
    if cond:
        def f(x): return x
    else:
        f = lambda x: x + 1
    f(1)
    """)
    assert binding_lines(p, "f", 6) == [3, 5]
    assert p.value(read_at(p, "f", 6)) is UNKNOWN


def test_both_arms_hide_an_earlier_binding_but_one_arm_does_not():
    p = model_of("""
    f = 0
    if c:
        f = 1
    else:
        f = 2
    g = 0
    if c:
        g = 1
    print(f, g)
    """)
    assert binding_lines(p, "f", 10) == [4, 6]
    assert binding_lines(p, "g", 10) == [7, 9]


def test_loop_carries_later_bindings_back_to_the_top():
    p = model_of("""
    x = 0
    for i in range(3):
        print(x)
        x = i
    print(x)
    """)
    assert binding_lines(p, "x", 4) == [2, 5]
    assert binding_lines(p, "x", 6) == [2, 5]
    assert binding_lines(p, "i", 5) == [3]


def test_try_body_never_hides_what_came_before():
    p = model_of("""
    try:
        import numpy as np
    except ImportError:
        np = None
    np.zeros(3)
    """)
    assert binding_lines(p, "np", 6) == [3, 5]


def test_local_lambda_is_not_a_later_def_of_the_same_name():
    p = model_of("""
    import jax

    def cookbook(x, y):
        g = lambda primals: primals[0] * primals[1]
        return jax.grad(g)((x, y))

    def g(x, y):
        return x, y
    """)
    assert binding_lines(p, "g", 6) == [5]
    v = p.value(read_at(p, "g", 6))
    assert type(v) is Function and type(v.node) is cst.Lambda


def test_a_parameter_shadows_a_module_level_name():
    p = model_of("""
    import jax
    f = lambda x: x

    def all_pairs(f):
        return jax.vmap(jax.vmap(f, in_axes=(None, 0)), in_axes=(0, None))
    """)
    v = p.value(read_at(p, "f", 6))
    assert type(v) is Parameter and v.binding.kind == "param"
    outer, inner = p.applications("jax.vmap")
    assert outer.target is inner and p.target_function(outer.target) is None
    assert p.literal(outer.keywords["in_axes"]) == (0, None)


def test_scopes_comprehension_class_global_nonlocal_walrus():
    p = model_of("""
    x = 1
    class C:
        x = 2
        def m(self):
            return x
    ys = [x for x in range(3)]
    def g():
        global x
        x = 5
    def outer():
        y = 1
        def inner():
            nonlocal y
            y = 2
        return y
    if (n := 10) > 5:
        print(n)
    """)
    assert binding_lines(p, "x", 6) == [2, 10]
    assert binding_lines(p, "x", 7) == [7]
    assert binding_lines(p, "y", 16) == [12, 15]
    assert binding_lines(p, "n", 18) == [17]


def test_imports_and_aliases_are_external_names():
    p = model_of("""
    import jax
    import jax.numpy as jnp
    from jax import vmap as vm
    vmap = jax.vmap
    a = vm
    b = vmap
    c = jnp.stack
    """)
    assert p.value(read_at(p, "vm", 6)) == External("jax.vmap")
    assert p.value(read_at(p, "vmap", 7)) == External("jax.vmap")
    assert p.value(p.parents[reads(p, "jnp")[0]]) == External("jax.numpy.stack")


def test_literals_through_constants_class_constants_unpacking_and_indexing():
    p = model_of("""
    AXES = (None, 0)
    class Cfg:
        AXIS = 1
    a, (b, c) = 3, (4, "i")
    spec = {"w": None, "x": 0}
    filled = {}
    filled["k"] = 0
    def f():
        local = [0, None]
        return AXES, Cfg.AXIS, b, c, spec["x"], local, filled, AXES[1]
    """)
    ret = next(n for n in p.ctx.descendants(p.ctx.module, prune=()) if type(n) is cst.Return)
    values = [p.literal(e.value) for e in ret.value.elements]
    assert values == [(None, 0), 1, 4, "i", 0, [0, None], UNKNOWN, 0]


def test_decorators_partial_and_stacked():
    p = model_of("""
    import jax
    from functools import partial

    @jax.jit
    @partial(jax.vmap, in_axes=(None, 0))
    def predict(w, x):
        return w @ x

    @some_unknown_decorator
    def other(x):
        return x

    bound = partial(predict, 1)
    """)
    v = p.value(read_at(p, "predict", 14))
    assert type(v) is Transformed and v.api == "jax.jit" and v.decorator
    inner = v.target
    assert type(inner) is Transformed and inner.api == "jax.vmap"
    assert p.literal(inner.keywords["in_axes"]) == (None, 0)
    assert [a.api for a in p.applications()] == ["jax.vmap", "jax.jit"]
    assert p.value(p.module_scope.bindings["other"][0].node) is UNKNOWN
    pv = p.value(p.module_scope.bindings["bound"][0].value)
    assert type(pv) is Partial
    fn, n, kws = p.target_function(pv)
    assert fn.name == "predict" and n == 1 and kws == []


def test_partial_vmap_called_on_a_function_and_keywords_bound_by_partial():
    p = model_of("""
    import jax, functools
    def f(x, w, b):
        return w @ x + b
    g = functools.partial(jax.vmap, in_axes=0)(f)
    h = jax.vmap(functools.partial(f, b=1))
    """)
    g, h = p.applications("jax.vmap")
    assert p.literal(g.keywords["in_axes"]) == 0 and g.target.name == "f"
    fn, n, kws = p.target_function(h.target)
    assert fn.name == "f" and n == 0 and kws == ["b"]


def test_factory_closure_and_self_method():
    p = model_of("""
    import jax
    def make_step(lr):
        def step(x):
            return jax.lax.pmean(x, "batch") * lr
        return step
    pstep = jax.pmap(make_step(0.1), axis_name="batch")

    class Model:
        def apply(self, x):
            return x
        def batched(self, xs):
            return jax.vmap(self.apply)(xs)
    """)
    pm, vm = p.applications()
    assert type(pm.target) is Function and pm.target.name == "step"
    assert type(vm.target) is Function and vm.target.name == "apply"


def test_invocations_through_names_jit_and_trace():
    p = model_of("""
    import jax
    def convolve(x, w):
        return x * w
    batched = jax.vmap(convolve)
    batched(1, 2)
    jax.jit(jax.vmap(convolve)).trace(3, 4)
    escaped = jax.vmap(convolve)
    store = [escaped]
    """)
    a, b, c = p.applications("jax.vmap")
    calls, complete = p.invocations(a.node)
    assert [line_of(p, x) for x in calls] == [6] and complete
    calls, complete = p.invocations(b.node)
    assert [line_of(p, x) for x in calls] == [7] and complete
    assert p.literal(calls[0].args[0].value) == 3
    assert p.invocations(c.node) == ([], False)


def test_origin_follows_unpacking_and_names():
    p = model_of("""
    w, b = init_layer(key)
    weights = w
    use(weights)
    """)
    origin, path = p.origin_path(read_at(p, "weights", 4))
    assert p.ctx.code(origin) == "init_layer(key)" and path == (0,)


def test_forwarding_wrapper_maps_parameters():
    p = model_of("""
    def linear(x, w):
        return w @ x
    f = lambda w, x: linear(x, w)
    def g(x, scale):
        return linear(x, 2)
    """)
    fn = p.value(p.module_scope.bindings["f"][0].value)
    callee, where = p.forwarded(fn)
    assert callee.name == "linear" and where == [1, 0]
    g = p.value(p.module_scope.bindings["g"][0].node)
    callee, where = p.forwarded(g)
    assert callee.name == "linear" and where == [0, None]


def test_invocations_into_a_helper_def_of_another_unit_only_with_callees():
    p = model_of("""
    import jax
    def run(step, xs):
        return step(xs, xs)
    class Runner:
        def helper(self, step, xs):
            return step(xs, xs)
        def main(self):
            return self.helper(jax.vmap(f), 1)
    def main():
        return run(step=jax.vmap(f), xs=1)
    """)
    method, helper = p.applications("jax.vmap")
    assert p.invocations(helper.node) == ([], False)
    calls, complete = p.invocations(helper.node, callees=True)
    assert [line_of(p, x) for x in calls] == [4] and not complete
    assert p.invocations(method.node, callees=True) == ([], False)  # a method's arguments start after self


def test_invocations_through_a_name_rebound_to_a_transform_of_itself():
    p = model_of("""
    import jax
    def pool(x, size, op):
        for i in range(3):
            f = jax.vmap(pool1d, (0, None, None))
            for j in range(2):
                f = jax.vmap(f, in_axes=(j, None, None))
            x = f(x, size, op)
        g = jax.vmap(pool1d)
        if x:
            g = jax.jit(g)
        g(x)
        h = jax.vmap(pool1d)
        for k in range(2):
            h = wrap(h) if k else jax.vmap(h)
        h(x)
        return x
    """)
    inner, outer, g, h, _h2 = p.applications("jax.vmap")
    b = p.binding_of_value(inner.node)
    assert [line_of(p, x.node) for x in p.rewrapped(b, frozenset({"jax.vmap"}))] == [5, 7]
    assert p.rewrapped(b, frozenset({"jax.jit"})) == [b]
    # every value ``f`` can hold at the call calls the first vmap with its positional arguments
    calls, complete = p.invocations(inner.node, through_maps=True)
    assert [line_of(p, x) for x in calls] == [8] and complete
    assert p.invocations(inner.node) == ([], False)  # an outer vmap slices: only through_maps
    assert p.invocations(outer.node, through_maps=True) == ([], False)  # ``f`` may be the inner one
    calls, complete = p.invocations(g.node)
    assert [line_of(p, x) for x in calls] == [12] and complete
    # ``h`` may also be whatever ``wrap`` makes of it
    assert p.invocations(h.node, through_maps=True) == ([], False)


def test_a_list_changed_through_an_element_is_mutated_before_a_later_read():
    """``m[2][1] = v`` changes the list ``m`` holds (jax's custom_linear_solve_test batches one
    element of a nested list this way), as do ``rows[0].x = v`` and ``xs[0].append(v)``;
    reading an element or a method of the list does not."""
    p = model_of(
        """
        m = [[1.0, 2.0], [3.0, 4.0]]
        n = m[0][1]
        use(m)
        m[1][0] = other
        use(m)
        rows = [a, b]
        rows[0].x = 1
        use(rows)
        xs = [[]]
        xs[0].append(1)
        use(xs)
        ys = [[]]
        k = ys.index([])
        use(ys)
        """
    )

    def mutated(name: str, line: int) -> bool:
        read = read_at(p, name, line)
        return p.mutated_before(read, p.reaching(read))

    assert [mutated("m", 4), mutated("m", 6), mutated("rows", 9), mutated("xs", 12), mutated("ys", 15)] == [
        False,
        True,
        True,
        True,
        False,
    ]
