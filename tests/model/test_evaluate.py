"""The evaluator: names, calls of defs with their arguments, catalogue calls, classes,
builtins, decorators and transforms, on small programs."""

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.model import dims
from jaxlint.model.abstract import (
    FLOAT,
    Array,
    Bound,
    Class,
    Const,
    Dict,
    Function,
    List,
    Opaque,
    Scalar,
    Seq,
    Shape,
    Struct,
    Transformed,
    Tuple,
)

from .helpers import def_named, model_of, read_at, value_of

HEAD = "import jax\nimport jax.numpy as jnp\nfrom functools import partial\n"


def shape(v):
    assert type(v) is Array, v
    return v.shape.dims if v.shape is not None else None


def test_constructors_and_arithmetic():
    assert shape(value_of(HEAD + "result = jnp.zeros((3, 4)) + jnp.ones(4)\n")) == (3, 4)
    assert shape(value_of(HEAD + "x = jnp.ones((8, 3))\nresult = x @ jnp.ones((3, 2))\n")) == (8, 2)
    assert value_of(HEAD + "result = 3 * 4 + 1\n") == Const(13)
    assert value_of(HEAD + "result = (2,) + (3, 4)\n") == Tuple((Const(2), Const(3), Const(4)))


def test_a_call_returns_the_callees_value_with_its_arguments_and_defaults():
    src = HEAD + (
        "def init(key, d_in=6, width=16):\n"
        "    return {'w': jax.random.normal(key, (d_in, width)), 'b': jnp.zeros(width)}\n"
        "result = init(jax.random.PRNGKey(0), width=4)\n"
    )
    v = value_of(src)
    assert type(v) is Dict
    assert shape(v.get("w")) == (6, 4) and shape(v.get("b")) == (4,)


def test_tuple_unpacking_indexing_and_shape_reads():
    src = HEAD + (
        "def setup():\n    return jnp.ones((5, 3)), jnp.zeros(7)\n"
        "x, y = setup()\nn, d = x.shape\nresult = (n, d, y.shape[0], x[0].shape, len(y))\n"
    )
    assert value_of(src) == Tuple((Const(5), Const(3), Const(7), Tuple((Const(3),)), Const(7)))


def test_symbols_flow_through_the_device_count():
    src = HEAD + "n = jax.local_device_count()\nresult = jnp.ones((n * 2, 3))\n"
    assert shape(value_of(src)) == (dims.mul(2, dims.DEVICES), 3)


def test_a_parameter_without_a_call_is_opaque_or_what_its_annotation_says():
    src = HEAD + "def f(x, n: int, a: jax.Array):\n    return x, n, a.shape[1]\nresult = f\n"
    from jaxlint.model.contexts import default_frame

    from .helpers import model_of

    p = model_of(src)
    fn = p.module_scope.bindings["f"][0].node
    ev = p.evaluator
    ret = ev.returned(ev.value(fn, None), default_frame(ev, fn))
    x, n, a1 = ret.items
    assert type(x) is Opaque and x.label == "x"
    assert n == Scalar("int", dims.sym("f.n", "n"))
    assert type(a1) is Scalar and a1.dim == dims.sym("f.a.shape[1]")


def test_an_argument_the_call_does_not_show_is_what_the_annotation_declares():
    src = HEAD + (
        "def f(g: float, n: int, x, h):\n    return g, n, x, h\n"
        "def run(config):\n    return f(config.gamma, config.steps, config.x, unknown)\n"
    )
    from .helpers import returned_items

    g, n, x, h = returned_items(src, "run")
    assert g == Scalar("float")
    assert type(n) is Scalar and n.kind == "int" and dims.text(n.dim) == "config.steps"  # the argument's identity
    assert type(x) is Opaque and h is UNKNOWN  # no annotation: as given


def test_jaxtyping_annotations_give_named_sizes_shared_in_a_signature():
    src = HEAD + (
        "from jaxtyping import Array, Float\n"
        "def f(x: Float[Array, 'batch d'], y: Float[Array, 'batch']):\n    return x, y\nresult = f\n"
    )
    from .helpers import returned_items

    x, y = returned_items(src, "f")
    assert x.shape.dims[0] == y.shape.dims[0] and x.dtype == FLOAT
    assert dims.text(x.shape.dims[1]) == "d"


def test_dataclass_pytrees_namedtuples_and_plain_objects():
    src = HEAD + (
        "import flax.struct\nfrom typing import NamedTuple\n"
        "@flax.struct.dataclass\nclass State:\n    params: dict\n    step: int = 0\n"
        "    apply_fn: object = flax.struct.field(pytree_node=False, default=None)\n"
        "class Batch(NamedTuple):\n    x: jax.Array\n    y: jax.Array\n"
        "class Opt:\n    def __init__(self, lr):\n        self.lr = lr\n"
        "result = (State({'w': jnp.ones(3)}), Batch(jnp.ones((4, 2)), jnp.zeros(4)), Opt(0.1))\n"
    )
    state, batch, opt = value_of(src).items
    assert type(state) is Struct and state.kind == "pytree" and state.static == frozenset({"apply_fn"})
    assert state.get("step") == Const(0)
    assert type(batch) is Struct and shape(batch.get("x")) == (4, 2)
    assert type(opt) is Struct and opt.kind == "object" and opt.get("lr") == Const(0.1)


def test_methods_see_their_receiver():
    src = HEAD + (
        "class Model:\n    def __init__(self, d):\n        self.w = jnp.ones((d, 2))\n"
        "    def apply(self, x):\n        return x @ self.w\n"
        "result = Model(3).apply(jnp.ones((5, 3)))\n"
    )
    assert shape(value_of(src)) == (5, 2)


def test_a_classmethod_is_bound_to_its_class_and_a_staticmethod_to_nothing():
    src = HEAD + (
        "class Model:\n    @classmethod\n    def make(cls, x):\n        return x\n"
        "    @staticmethod\n    def plain(x):\n        return x\n"
        "m = Model()\n"
    )
    for read in ("Model.make", "m.make"):
        v = value_of(src + f"result = {read}\n")
        assert type(v) is Bound and type(v.receiver) is Class and v.func.name == "make", read
    for read in ("Model.plain", "m.plain"):
        v = value_of(src + f"result = {read}\n")
        assert type(v) is Function and v.name == "plain", read


def test_decorators_and_transforms_are_values():
    src = HEAD + ("@partial(jax.vmap, in_axes=(None, 0))\ndef f(w, x):\n    return w @ x\ng = jax.jit(f)\nresult = g\n")
    v = value_of(src)
    assert type(v) is Transformed and v.api == "jax.jit"
    inner = v.target
    assert inner.api == "jax.vmap" and inner.option("in_axes") == Tuple((Const(None), Const(0)))


def test_vmap_adds_the_batch_axis_and_grad_gives_cotangents():
    src = HEAD + (
        "def f(w, x):\n    return jnp.sum(w @ x)\n"
        "w = jnp.ones((2, 3))\n"
        "result = (jax.vmap(f, in_axes=(None, 0))(w, jnp.ones((7, 3))), jax.grad(f)(w, jnp.ones(3)))\n"
    )
    batched, grads = value_of(src).items
    assert shape(batched) == (7,) and shape(grads) == (2, 3) and grads.dtype == FLOAT


def test_lax_control_flow_runs_its_bodies():
    src = HEAD + (
        "from jax import lax\n"
        "def body(carry, x):\n    return carry + x, x * 2\n"
        "result = lax.scan(body, jnp.zeros(3), jnp.ones((10, 3)))\n"
    )
    carry, ys = value_of(src).items
    assert shape(carry) == (3,) and shape(ys) == (10, 3)


def test_unknown_stays_unknown():
    assert value_of(HEAD + "result = load_data()\n") is UNKNOWN
    assert value_of(HEAD + "import optax\nresult = optax.adam(1e-3)\n") is UNKNOWN


def test_identity_with_a_traced_array_is_a_python_bool():
    """``rng is not None`` on a tracer asks it for no truth value (haiku's apply under vmap);
    an array is never None."""
    from jaxlint.model.abstract import Array, Const, Scalar

    p = model_of(
        """
        import jax
        def f(rng):
            a = rng is not None
            b = rng is None
            c = rng == None
            return a
        jax.vmap(f)(jax.numpy.ones((3, 2)))
        """
    )
    ev = p.evaluator
    traced = Array(None, None, False, None, True)
    frame = ev.frame(p.ctx.module.body[1], {"rng": traced}, None)
    values = {}
    for stmt in p.ctx.module.body[1].body.body[:3]:
        assign = stmt.body[0]
        values[assign.targets[0].target.value] = ev.value(assign.value, frame)
    assert values["a"] == Const(True) and values["b"] == Const(False)
    assert type(values["c"]) is Array and values["c"].traced  # ``==`` is elementwise: a traced array
    assert Scalar("bool") != values["c"]


def _self_reads(src: str, attr: str) -> list:
    """The values of ``self.<attr>`` read in the methods named ``run``."""
    p = model_of(HEAD + src)
    return [
        p.evaluator.value(n, None)
        for n in p.ctx.descendants(p.ctx.module, prune=())
        if type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value == "self" and n.attr.value == attr
        if getattr(p.ctx.enclosing_function(n), "name", None) is not None
        and p.ctx.enclosing_function(n).name.value == "run"
    ]


def test_a_class_attribute_read_through_self_is_its_value_unless_something_may_replace_it():
    method = "    def run(self):\n        return self.axis\n"
    assert _self_reads("class A:\n    axis = 'batch'\n" + method, "axis") == [Const("batch")]
    # an instance store comes first: exactly one, evaluated where it is stored
    stored = "class A:\n    axis = 'batch'\n    def __init__(self):\n        self.axis = 'data'\n" + method
    assert _self_reads(stored, "axis") == [Const("data")]
    # a subclass of the file binds it again: self may be an instance of it
    sub = "class A:\n    axis = 'batch'\n" + method + "class B(A):\n    axis = 'data'\n"
    assert _self_reads(sub, "axis") == [UNKNOWN]
    # a dataclass's class-level value is only a field default: the field holds a str, as
    # declared, not that value; a library base may set it
    field = "@dataclasses.dataclass\nclass A:\n    axis: str = 'batch'\n" + method
    assert _self_reads("import dataclasses\n" + field, "axis") == [Scalar("str")]
    library = "import flax.linen as nn\nclass A(nn.Module):\n    axis = 'batch'\n" + method
    assert _self_reads(library, "axis") == [UNKNOWN]
    # a method is bound, not read as data
    assert _self_reads("class A:\n    def axis(self):\n        return 1\n" + method, "axis") != [UNKNOWN]


def test_an_attribute_a_project_base_stores_is_read_through_a_library_base_further_up():
    run = "    def run(self):\n        return self.rng\n"
    base = "import absl.testing.absltest as absltest\nclass Base(absltest.TestCase):\n"
    # a base of the file stores it in ``setUp``; its own base is a library class
    stored = base + "    def setUp(self):\n        self.rng = 'gen'\nclass T(Base):\n" + run
    assert _self_reads(stored, "rng") == [Const("gen")]
    # no project class stores it: the library base may
    assert _self_reads(base + "    pass\nclass T(Base):\n" + run, "rng") == [UNKNOWN]
    # two stores in the project's classes: not one value
    twice = stored.replace("class T(Base):\n", "class T(Base):\n    def reset(self):\n        self.rng = 'other'\n")
    assert _self_reads(twice, "rng") == [UNKNOWN]


def test_a_value_the_fuel_cut_short_is_computed_again_with_more_fuel():
    # a rule asking with little fuel must not fix the answer for a later question
    src = HEAD + (
        "def inner(n):\n    return jnp.zeros((n, 3))\ndef outer(n):\n    return inner(n) + 1\nresult = outer(4)\n"
    )
    p = model_of(src)
    ev = p.evaluator
    expr = p.module_scope.bindings["result"][-1].value
    with ev.query(3):
        assert ev.value(expr, None) is UNKNOWN
    assert shape(ev.value(expr, None)) == (4, 3)


def test_a_free_name_is_read_where_the_module_level_call_runs():
    # a notebook rebinds ``f``; the call in between sees the ``f`` bound before it
    src = HEAD + (
        "def f(x):\n    return jnp.round(x)\n"
        "def g(x):\n    return f(x) + 1.0\n"
        "early = g(jnp.zeros(3))\n"
        "def f(x):\n    return jnp.zeros((4, 3))\n"
        "late = g(jnp.zeros(3))\n"
    )
    assert shape(value_of(src, "early")) == (3,)
    assert shape(value_of(src, "late")) == (4, 3)


def test_a_generator_functions_call_is_an_iterator_of_what_it_yields():
    gen = HEAD + (
        "import numpy as np\n"
        "def batches(n):\n    for i in range(n):\n        yield np.zeros((128, 4))\n"
        "def pairs():\n    yield from [jnp.zeros(3), jnp.ones(3)]\n"
        "def bare():\n    yield\n"
    )
    assert shape(value_of(gen + "for b in batches(3):\n    result = b\n")) == (128, 4)
    assert shape(value_of(gen + "result = next(batches(3))\n")) == (128, 4)
    assert shape(value_of(gen + "for b in list(batches(3)):\n    result = b\n")) == (128, 4)
    assert shape(value_of(gen + "result = next(iter_ := pairs())\n")) == (3,)
    assert value_of(gen + "result = next(bare())\n") == Const(None)
    assert value_of(gen + "result = next(batches(3), None)\n") is UNKNOWN  # an array or None
    assert value_of(gen + "result = len(batches(3))\n") is UNKNOWN  # Python raises TypeError
    # a def whose only ``yield`` is in a nested def is no generator: it returns
    nested = HEAD + "def f():\n    def g():\n        yield 1\n    return 2\nresult = f()\n"
    assert value_of(nested) == Const(2)


def test_a_comprehension_over_an_array_of_known_length_is_one_item_per_row():
    # an array iterates over its leading axis: a layer per key of a split
    src = HEAD + (
        "keys = jax.random.split(jax.random.key(0), 2)\n"
        "sizes = [784, 512, 10]\n"
        "result = [jax.random.normal(k, (m, n)) for k, m, n in zip(keys, sizes[:-1], sizes[1:])]\n"
    )
    v = value_of(src)
    assert [shape(x) for x in v.items] == [(784, 512), (512, 10)]
    assert [shape(x) for x in value_of(HEAD + "result = [r for r in jnp.ones((3, 4))]\n").items] == [(4,)] * 3
    called = value_of(HEAD + "def f(x):\n    return [r for r in x]\nresult = f(jnp.ones((7, 2)))\n")
    assert [shape(x) for x in called.items] == [(2,)] * 7
    # a symbolic leading axis gives no items one by one: a sequence of that many rows
    rows = value_of(HEAD + "n = jax.device_count()\nresult = [r for r in jnp.ones((n, 2))]\n")
    assert type(rows) is Seq and shape(rows.item) == (2,) and dims.text(rows.length) == "n_devices"


def test_a_comprehension_over_items_not_known_one_by_one_gives_what_every_element_is():
    # the L2 idiom: every element is a rank-0 array, whatever the leaves are; their sum too
    src = HEAD + "def l2(params):\n    return {}\nresult = l2(unknown)\n"
    squares = value_of(src.format("[jnp.sum(p ** 2) for p in jax.tree.leaves(params)]"))
    assert type(squares) is Seq and squares.length is None and shape(squares.item) == ()
    assert shape(value_of(src.format("sum(jnp.sum(p ** 2) for p in jax.tree.leaves(params))"))) == ()
    # an element the model cannot say for an unknown item, or a sum whose empty case (0)
    # would have another shape: unknown
    assert value_of(src.format("[p for p in jax.tree.leaves(params)]")) is UNKNOWN
    assert value_of(src.format("sum(p ** 2 for p in jax.tree.leaves(params))")) is UNKNOWN
    assert value_of(src.format("sum([jnp.ones(3), jnp.ones(3)])")) is not UNKNOWN


def test_arithmetic_of_an_opaque_value_is_a_size_where_it_is_used_as_one():
    from .helpers import returned_items

    src = HEAD + (
        "def f(n, x):\n"
        "    a = jnp.ones((n, 3))\n    b = jnp.ones((n + 1,))\n    c = jnp.ones((2 * n - 1,))\n"
        "    return n + 1, x * 2, a, b, c, n + x\n"
    )
    m, x2, a, b, c, nx = returned_items(src, "f")
    # values of their own (``n`` may be anything that adds): not an int, not unknown
    assert type(m) is Opaque and m.label == "n + 1" and type(x2) is Opaque and type(nx) is Opaque
    assert m == returned_items(src, "f")[0] and m != nx  # equal by what they are computed from
    n = dims.sym("f.n", "n")
    assert shape(a)[0] == n
    assert shape(b)[0] == dims.add(n, 1) and dims.different(shape(a)[0], shape(b)[0])
    assert shape(c)[0] == dims.sub(dims.mul(2, n), 1)
    assert not dims.different(shape(a)[0], shape(c)[0])  # equal when n is 1


def test_a_method_runs_in_the_frames_of_the_calls_of_the_module_s_instances():
    from jaxlint.model.contexts import contexts

    src = HEAD + (
        "import dataclasses\n"
        "@dataclasses.dataclass\nclass Norm:\n    axis_name: str = 'batch'\n"
        "    def __call__(self, x):\n        return self.axis_name, x\n"
        "    def scale(self, x, k):\n        return x * k\n"
        "model = Norm()\ny = model(jnp.ones(3))\nz = model.scale(jnp.ones(2), 3)\nother = Norm('devices')\n"
    )
    p = model_of(src)
    ev = p.evaluator
    methods = {n.name.value: n for n in p.ctx.nodes_of(cst.FunctionDef)}
    (call,) = contexts(ev, methods["__call__"])
    assert ev.value(call_body_return(methods["__call__"]), call).items[0] == Const("batch")  # the receiver's field
    (scale,) = contexts(ev, methods["scale"])
    assert dict(scale.params)["k"] == Const(3) and shape(dict(scale.params)["x"]) == (2,)
    # through the receiver of the class's own methods: ``self.scale(...)`` in another method
    inner = model_of(
        HEAD + "class M:\n    def fit(self, x):\n        return self.scale(x, 2)\n"
        "    def scale(self, x, k):\n        return x * k\n"
    )
    scale_def = def_named(inner, "scale")
    assert [dict(f.params).get("k") for f in contexts(inner.evaluator, scale_def)] == [Const(2)]
    # a class nothing makes: the default frame, its receiver unknown
    lone = model_of(HEAD + "class A:\n    def f(self, x):\n        return x\n")
    (f,) = lone.ctx.nodes_of(cst.FunctionDef)
    assert not contexts(lone.evaluator, f)[0].params


def test_a_bound_method_used_as_a_value_runs_where_that_value_is_called():
    from jaxlint.model.contexts import contexts

    src = HEAD + (
        "class Model:\n    def loss(self, w, x):\n        return jnp.sum(w * x)\n"
        "model = Model()\n"
        "grad_fn = jax.jit(jax.value_and_grad(model.loss))\n"
        "value, grads = grad_fn(jnp.ones(3), jnp.ones(3))\n"
        "f = model.loss\n"
        "out = f(jnp.ones(5), 2.0)\n"
    )
    p = model_of(src)
    ev = p.evaluator
    loss = def_named(p, "loss")
    frames = contexts(ev, loss)
    assert sorted(shape(dict(f.params)["w"]) for f in frames) == [(3,), (5,)]
    assert all(type(dict(f.params)["self"]) is Struct for f in frames)  # the receiver, not an argument


def test_a_dataclass_field_default_factory_gives_what_the_factory_returns():
    src = HEAD + (
        "import dataclasses\n"
        "@dataclasses.dataclass\nclass Config:\n"
        "    sizes: list = dataclasses.field(default_factory=lambda: [4, 16, 1])\n"
        "    log: list = dataclasses.field(default_factory=list)\n"
        "result = (Config().sizes, Config().log)\n"
    )
    from jaxlint.model.abstract import List

    assert value_of(src) == Tuple((List((Const(4), Const(16), Const(1))), List(())))


def call_body_return(fn):
    (ret,) = [s.body[0] for s in fn.body.body if isinstance(s, cst.SimpleStatementLine)]
    return ret.value


FLAX = HEAD + (
    "import flax.linen as nn\n"
    "class Scale(nn.Module):\n    factor: float = 2.0\n    axis_name: str = 'batch'\n"
    "    @nn.compact\n    def __call__(self, x):\n        return x * self.factor, self.axis_name\n"
)


def test_a_flax_module_is_a_dataclass_of_its_fields_and_apply_runs_its_call():
    from .helpers import returned_items

    src = FLAX + (
        "def run(params, x):\n    m = Scale(axis_name='data', name='scale')\n"
        "    return m, m.apply(params, jnp.ones((3,)))\n"
    )
    m, out = returned_items(src, "run")
    assert type(m) is Struct and m.kind == "object" and m.get("factor") == Const(2.0)
    assert m.get("axis_name") == Const("data")
    assert shape(out.items[0]) == (3,) and out.items[1] == Const("data")
    # the mutated state too: not what ``__call__`` returns
    (_, other) = returned_items(
        src.replace("m.apply(params, jnp.ones((3,)))", "m.apply(params, x, mutable=['s'])"), "run"
    )
    assert other is UNKNOWN
    # another method, named by ``method=`` (the function, or its name)
    two = src.replace(
        "class Scale(nn.Module):", "class Scale(nn.Module):\n    def half(self, x):\n        return x / 2"
    )
    for method in ("Scale.half", "'half'"):
        (_, halved) = returned_items(two.replace("jnp.ones((3,)))", f"jnp.ones((5,)), method={method})"), "run")
        assert shape(halved) == (5,)


def test_a_flax_module_s_call_runs_in_the_frames_of_apply():
    from jaxlint.model.contexts import contexts

    p = model_of(FLAX + "model = Scale(factor=3.0)\ny = model.apply({}, jnp.ones((4, 2)))\n")
    fn = def_named(p, "__call__")
    (frame,) = contexts(p.evaluator, fn)
    params = dict(frame.params)
    assert params["self"].get("factor") == Const(3.0) and shape(params["x"]) == (4, 2)
    # ``method=`` runs that method in the frame of the call, not ``__call__``
    src = FLAX.replace(
        "class Scale(nn.Module):", "class Scale(nn.Module):\n    def half(self, x):\n        return x / 2"
    )
    p = model_of(src + "model = Scale()\ny = model.apply({}, jnp.ones((7,)), method=Scale.half)\n")
    defs = {n.name.value: n for n in p.ctx.nodes_of(cst.FunctionDef)}
    (half,) = contexts(p.evaluator, defs["half"])
    assert shape(dict(half.params)["x"]) == (7,)
    assert not dict(contexts(p.evaluator, defs["__call__"])[0].params)


def test_a_jax_function_of_values_the_model_does_not_know_gives_the_arrays_it_promises():
    # a JAX function returns JAX arrays or raises: what it accepts is an array or a number
    src = HEAD + "import numpy as np\nx = unknown\nresult = {}\n"
    assert shape(value_of(src.format("jnp.tanh(x)"))) is None
    assert shape(value_of(src.format("jax.nn.logsumexp(x, axis=-1)"))) is None
    assert shape(value_of(src.format("jnp.mean(jnp.tanh(x))"))) == ()
    # NumPy's functions may give any object for an unknown argument
    assert value_of(src.format("np.tanh(x)")) is UNKNOWN


def test_an_operand_the_model_does_not_know_keeps_the_arrays_axes():
    # JAX converts the other operand (a number, an array) or raises: the result has at
    # least the array's axes, of sizes the model cannot know; a host (NumPy) array may
    # meet an object that defines the operator itself: unknown
    from jaxlint.model.abstract import Array, Shape

    src = (
        "import jax.numpy as jnp\nimport numpy as np\n"
        "def f(y):\n    return jnp.ones((3, 4)) - y, jnp.ones(()) * y, np.ones(3) + y\n"
        "result = f(unknown())\n"
    )
    v = value_of(src)
    assert v.items[0] == Array(Shape((None, None), True))
    assert type(v.items[1]) is Array and v.items[1].shape is None
    assert v.items[2] is UNKNOWN
    # ``@`` contracts: a vector times what it is given may be a scalar
    assert (
        value_of("import jax.numpy as jnp\ndef f(y):\n    return jnp.ones(3) @ y\nresult = f(unknown())\n") is UNKNOWN
    )
    # an elementwise op with an operand of unknown rank keeps the other's axes
    src = "import jax.numpy as jnp\ndef f(y):\n    return jnp.ones((2, 5)) + jnp.tanh(y)\nresult = f(unknown())\n"
    assert value_of(src).shape == Shape((None, None), True)


def test_a_loop_carried_name_is_solved_as_a_fixpoint_of_its_bindings():
    from .helpers import read_at

    # ``params`` at the call reads the list made before the loop, or what the update
    # makes from it; the update's gradient has the parameters' shapes, so the loop keeps
    # them, and the read knows them (not only the first iteration's)
    src = HEAD + (
        "def loss(params, x):\n    return jnp.sum(params[0] @ x)\n"
        "def train(x):\n"
        "    params = [jnp.ones((4, 8))]\n"
        "    for _ in range(3):\n"
        "        grads = jax.grad(loss)(params, x)\n"
        "        params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)\n"
        "    return params\n"
    )
    p = model_of(src)
    first = read_at(p, "params", 9)  # ``jax.grad(loss)(params, x)``
    got = p.evaluator.value(first, None)
    assert type(got) is List and shape(got.items[0]) == (4, 8)
    # a binding that changes the shape each iteration: the sizes join to unknown
    grow = model_of(
        HEAD + "def f():\n    x, y = jnp.ones(3), jnp.ones(2)\n    for _ in range(3):\n        z = x + 1\n"
        "        x = jnp.concatenate([x, y])\n    return z\n"
    )
    z = grow.evaluator.value(read_at(grow, "x", 7), None)
    assert type(z) is Array and z.shape is not None and z.shape.dims[0] is None


def test_a_generator_knows_its_first_item_when_its_one_yield_is_under_known_loops():
    from jaxlint.model.abstract import Generator

    src = HEAD + (
        "import numpy as np\n"
        "def batches(x, n):\n"
        "    for start in range(0, len(x) - n + 1, n):\n"
        "        yield x[start:start + n]\n"
        "def guarded(x, n):\n"
        "    for start in range(0, len(x), n):\n"
        "        if start:\n"
        "            yield x[start:start + n]\n"
        "x = np.zeros((128, 2))\n"
        "result = (batches(x, 32), guarded(x, 32))\n"
    )
    plain, guarded = value_of(src).items
    assert type(plain) is Generator and shape(plain.first) == (32, 2)
    assert type(guarded) is Generator and guarded.first is UNKNOWN  # which yield runs first is not known
    # every item, each loop target bound to each of its items: a window as wide as the step
    # over a length it divides is that wide every time
    assert shape(plain.item) == (32, 2)
    ragged = src.replace("result = (batches(x, 32), guarded(x, 32))", "result = batches(np.zeros((100, 2)), 32)")
    ragged = ragged.replace("range(0, len(x) - n + 1, n)", "range(0, len(x), n)")
    item = value_of(ragged).item
    assert shape(value_of(ragged).first) == (32, 2) and item.shape.dims[0] is None  # the last one has 4 rows


def test_a_generator_whose_items_are_known_one_by_one_lists_them():
    # ``list(gen)`` of a generator whose one yield is under loops over known items: one
    # item per iteration, so stacking them has their count as its leading axis
    src = HEAD + (
        "def motifs(n):\n"
        "    for m in range(n):\n"
        "        yield jnp.zeros((4, 3)) + m\n"
        "def ragged(xs):\n"
        "    for x in xs:\n"
        "        if x:\n"
        "            yield jnp.zeros(2)\n"
    )
    assert shape(value_of(src + "result = jnp.stack(list(motifs(12)))\n")) == (12, 4, 3)
    assert len(value_of(src + "result = tuple(motifs(5))\n").items) == 5
    assert shape(value_of(src + "result = jnp.stack([y for y in motifs(7)])\n")) == (7, 4, 3)
    # an ``if`` around the yield: how many it yields is not known
    assert value_of(src + "result = list(ragged([1, 0, 1]))\n").length is None


def test_a_function_given_to_a_catalogue_function_runs_as_its_rule_calls_it():
    from jaxlint.model.contexts import contexts

    # ``lax.scan`` calls ``body(carry, x)`` with one slice of ``xs`` along its leading axis,
    # in each context of the def that makes the scan call
    src = HEAD + (
        "from jax import lax\n"
        "def fit(w, xs, ys):\n"
        "    def body(w, batch):\n"
        "        x, y = batch\n"
        "        return w, x @ w - y\n"
        "    return lax.scan(body, w, (xs, ys))\n"
        "out = fit(jnp.zeros((3, 2)), jnp.ones((25, 16, 3)), jnp.ones((25, 16, 2)))\n"
        "tree = jax.tree.map(lambda a, b: a + b, {'w': jnp.ones(4)}, {'w': jnp.ones(4)})\n"
    )
    p = model_of(src)
    ev = p.evaluator
    body = def_named(p, "body")
    (frame,) = contexts(ev, body)
    params = dict(frame.params)
    assert shape(params["w"]) == (3, 2)
    assert [shape(x) for x in params["batch"].items] == [(16, 3), (16, 2)]
    assert p.ctx.code(frame.site).startswith("lax.scan(")
    (lam,) = p.ctx.nodes_of(cst.Lambda)
    (leaf,) = contexts(ev, lam)
    assert shape(dict(leaf.params)["a"]) == (4,)


def test_a_nested_def_no_call_reaches_runs_in_the_calls_of_its_factory():
    from jaxlint.model.contexts import contexts

    # ``step`` is returned and called where the model does not follow it: its closure is
    # still a call of ``make_step``, which binds ``name``
    src = HEAD + (
        "LOSSES = {'mse': lambda p: p ** 2}\n"
        "def make_step(name, scale):\n"
        "    loss_fn = LOSSES[name]\n"
        "    def step(params):\n"
        "        return loss_fn(params) * scale\n"
        "    return step\n"
        "steps = [make_step('mse', 2.0), make_step('mse', 3.0)]\n"
        "def lone():\n"
        "    def inner(x):\n"
        "        return x\n"
        "    return inner\n"
    )
    p = model_of(src)
    ev = p.evaluator
    frames = contexts(ev, def_named(p, "step"))
    assert [dict(f.parent.params)["scale"] for f in frames] == [Const(2.0), Const(3.0)]
    assert all(not f.params for f in frames)
    # a factory nothing calls gives its nested def the one empty frame
    (only,) = contexts(ev, def_named(p, "inner"))
    assert only.site is None and not only.params and only.parent.site is None


def test_python_power_gives_ints_and_floats_as_python_does():
    assert value_of("result = 16 ** -0.5") == Const(0.25)
    assert value_of("result = 2 ** 10") == Const(1024)
    assert value_of("D = 64\nresult = D ** 0.5") == Const(8.0)
    assert value_of("result = (-8) ** 0.5") is UNKNOWN  # a complex number
    assert value_of("result = 3 ** 1000") == Scalar("int")  # too large to fold: still an int
    # a scale folded into an array keeps the array's shape
    src = "import jax\nD = 16\nresult = jax.random.normal(jax.random.PRNGKey(0), (D, D)) * D ** -0.5\n"
    assert shape(value_of(src)) == (16, 16)


def test_a_method_no_call_reaches_runs_on_the_instances_the_file_makes():
    from jaxlint.model.contexts import contexts, sites

    src = HEAD + (
        "class Runner:\n"
        "    def __init__(self, d=16):\n"
        "        self.w = jnp.zeros((d, 4))\n"
        "    def predict(self, xs):\n"
        "        return self.w\n"
        "    def score(self, xs):\n"
        "        return self.predict(xs)\n"
        "r = Runner()\n"
        "q = Runner(8)\n"
        "r.score(1)\n"
    )
    p = model_of(src)
    ev = p.evaluator
    predict = def_named(p, "predict")
    w = predict.body.body[0].body[0].value
    frames = contexts(ev, predict)
    # ``predict`` is called by ``score``, which ``r.score(1)`` calls on ``r``
    assert [shape(ev.value(w, f)) for f in frames] == [(16, 4)]
    # with no call in view, one frame per instance made, none cited as a call
    alone = model_of(
        src.replace("r.score(1)\n", "").replace("        return self.predict(xs)\n", "        return xs\n")
    )
    fn = def_named(alone, "predict")
    w = fn.body.body[0].body[0].value
    frames = contexts(alone.evaluator, fn)
    assert [shape(alone.evaluator.value(w, f)) for f in frames] == [(16, 4), (8, 4)]
    assert [sites(f) for f in frames] == [[], []]
    assert [list(dict(f.params)) for f in frames] == [["self"], ["self"]]  # ``xs`` unbound


def test_a_field_another_method_stores_is_not_the_constructors_value():
    src = HEAD + (
        "class Loader:\n"
        "    def __init__(self):\n"
        "        self.batch = 32\n"
        "        self.dim = 16\n"
        "    def set_batch(self, n):\n"
        "        self.batch = n\n"
        "loader = Loader()\n"
        "loader.set_batch(8)\n"
        "result = (loader.batch, loader.dim)\n"
    )
    batch, dim = value_of(src).items
    assert batch is UNKNOWN and dim == Const(16)


def test_an_inherited_method_runs_on_the_subclass_instances_and_abc_adds_nothing():
    from jaxlint.model.contexts import contexts

    src = HEAD + (
        "import abc\n"
        "class Base(abc.ABC):\n"
        "    def __init__(self, n):\n"
        "        self.n = n\n"
        "    def run(self):\n"
        "        return self.n\n"
        "    @abc.abstractmethod\n"
        "    def step(self): ...\n"
        "class Impl(Base):\n"
        "    def step(self):\n"
        "        return 1\n"
        "class Other(Base):\n"
        "    def run(self):\n"
        "        return 0\n"
        "Impl(3).run()\n"
        "Other(4).run()\n"
    )
    p = model_of(src)
    base = next(c for c in p.ctx.nodes_of(cst.ClassDef) if c.name.value == "Base")
    run = next(f for f in base.body.body if type(f) is cst.FunctionDef and f.name.value == "run")
    ret = run.body.body[0].body[0].value
    # Impl inherits run (Other overrides it): Impl(3).run() is a call of Base.run
    assert [p.evaluator.value(ret, f) for f in contexts(p.evaluator, run)] == [Const(3)]


def test_a_def_a_factory_returns_runs_where_the_factory_s_results_are_called():
    from jaxlint.model.contexts import contexts

    src = HEAD + (
        "def make_step(lr):\n"
        "    @jax.jit\n"
        "    def step(w, x):\n        return w - lr * x\n"
        "    return step\n"
        "def make_pair(lr):\n"
        "    def update(w, g):\n        return w - lr * g\n"
        "    return lr, update\n"
        "def fit():\n"
        "    step = make_step(0.1)\n"
        "    lr, update = make_pair(0.5)\n"
        "    return step(jnp.ones((4, 3)), jnp.ones(3)), update(jnp.ones(2), 1.0)\n"
    )
    p = model_of(src)
    ev = p.evaluator
    (step,) = contexts(ev, def_named(p, "step"))
    assert shape(dict(step.params)["w"]) == (4, 3) and shape(dict(step.params)["x"]) == (3,)
    assert ev.value(read_at(p, "lr", 7), step) == Const(0.1)  # the closure of that call
    # item 1 of a returned tuple goes where the unpacking binds position 1
    (update,) = contexts(ev, def_named(p, "update"))
    assert shape(dict(update.params)["w"]) == (2,) and dict(update.params)["g"] == Const(1.0)


def test_next_and_for_run_an_iterator_object_s_next():
    src = HEAD + (
        "class Batches:\n"
        "    def __init__(self, n):\n        self.n = n\n"
        "    def __iter__(self):\n        return self\n"
        "    def __next__(self):\n        return jnp.ones((self.n, 8))\n"
        "loader = Batches(32)\n"
        "first = next(loader)\n"
        "again = next(iter(loader))\n"
    )
    assert shape(value_of(src, "first")) == (32, 8)
    assert shape(value_of(src, "again")) == (32, 8)
    p = model_of(src)  # what a ``for`` over it binds
    loader = p.evaluator.value(p.module_scope.bindings["loader"][-1].value, None)
    assert shape(p.evaluator.element(loader)) == (32, 8)


def test_reversed_and_sorted_keep_what_their_sequence_iterates():
    src = HEAD + (
        "def last(xs):\n    for x in xs:\n        pass\n    return x\n"
        "backwards = reversed(range(3))\n"
        "items = sorted((3, 1, 2))\n"
        "rows = reversed(jnp.ones((4, 5)))\n"
    )
    p = model_of(src)
    ev = p.evaluator

    def bound(name):
        return ev.value(p.module_scope.bindings[name][-1].value, None)

    assert ev.element(bound("backwards")) == Scalar("int")
    assert bound("items") == List((Const(1), Const(2), Const(3)))
    assert shape(ev.element(bound("rows"))) == (5,)


def test_an_item_at_an_unknown_int_index_is_what_every_item_agrees_on():
    # `counties[i]` with `i` from a permutation: one of the items, whichever
    src = (
        "import jax.numpy as jnp\nimport numpy as np\n"
        "items = [{'x': jnp.ones((4, 2))}, {'x': jnp.zeros((4, 2))}]\n"
        "i = np.random.permutation(2)[0]\n"
        "result = items[i]\n"
    )
    got = value_of(src)
    assert type(got) is Dict and got.get("x") == Array(Shape((4, 2)), FLOAT)
    # an index that may be a slice, or a str: not an item
    assert value_of(src.replace("result = items[i]", "result = items[unknown]")) is UNKNOWN


def test_a_record_copy_with_fields_given_anew():
    # `_replace` of a NamedTuple, `dataclasses.replace`: the same record but the fields given;
    # a field the record does not have raises
    src = HEAD + (
        "import dataclasses\nfrom typing import NamedTuple\n"
        "class S(NamedTuple):\n    lat: jax.Array\n    key: jax.Array\n"
        "@dataclasses.dataclass(frozen=True)\nclass C:\n    n: int = 1\n"
        "s = S(jnp.float32(0.0), jax.random.key(0))\n"
    )
    moved = value_of(src + "result = s._replace(lat=jnp.zeros(3))\n")
    assert shape(moved.get("lat")) == (3,) and moved.get("key") == value_of(src + "result = s.key\n")
    assert value_of(src + "result = dataclasses.replace(C(), n=4).n\n") == Const(4)
    assert value_of(src + "result = s._replace(oops=1)\n") is UNKNOWN


def test_a_classmethods_first_parameter_is_its_class():
    # with no call in view `cls` is the class (its attributes, its constructor), as `self` of
    # a plain method is an instance of it; a staticmethod's first parameter is neither
    from jaxlint.model.abstract import Class
    from jaxlint.model.contexts import default_frame

    src = HEAD + (
        "class Deck:\n    n = 12\n"
        "    @classmethod\n    def make(cls):\n        return cls, jnp.zeros((cls.n, 3))\n"
        "    @staticmethod\n    def plain(n):\n        return n, n\n"
    )
    p = model_of(src)
    ev = p.evaluator
    cls_node = p.module_scope.bindings["Deck"][0].node
    methods = {m.name.value: m for m in cls_node.body.body if isinstance(m, cst.FunctionDef)}
    made = ev.returned(ev.value(methods["make"], None), default_frame(ev, methods["make"])).items
    assert type(made[0]) is Class and made[0].node is cls_node and shape(made[1]) == (12, 3)
    plain = ev.returned(ev.value(methods["plain"], None), default_frame(ev, methods["plain"])).items
    assert type(plain[0]) is not Class


def test_math_functions_give_python_numbers_of_their_kind():
    assert value_of("import math\nresult = math.hypot(3.0, 4.0)\n") == Const(5.0)
    assert value_of("import math\nresult = math.floor(2.5)\n") == Const(2)
    assert value_of("import math\nresult = math.sqrt(-1.0)\n") is UNKNOWN  # raises there too
    assert value_of("import math\ndef f(a):\n    return math.atan2(a, 1.0)\nresult = f(x)\n") == Scalar("float")
    assert value_of("import math\ndef f(a):\n    return math.ceil(a)\nresult = f(x)\n") == Scalar("int")
    assert value_of("import math\ndef f(a):\n    return math.isnan(a)\nresult = f(x)\n") == Scalar("bool")


def test_an_array_of_a_comprehensions_rows_has_their_count_and_shape():
    # ``[features(s) for s in shots]``: one row of three numbers per item
    source = "import jax.numpy as jnp\ndef row(i):\n    return [1.0, 2.0, float(i)]\n"
    assert value_of(source + "result = jnp.array([row(i) for i in range(7)])\n").shape == Shape((7, 3))
    assert value_of("import numpy as np\nresult = np.array([[1, 2] for _ in range(n)])\n").shape == Shape((None, 2))
    assert value_of("import numpy as np\nresult = np.array([[1, 2][:k] for _ in range(3)])\n") is UNKNOWN


def test_an_optax_chain_gives_updates_shaped_like_the_gradients():
    from .helpers import model_with_stubs

    p = model_with_stubs(
        "import jax, jax.numpy as jnp, optax\n"
        "params = (jnp.zeros(5), jnp.array(-1.0))\n"
        "opt = optax.adam(0.1)\n"
        "updates, state = opt.update(params, opt.init(params))\n"
        "result = optax.apply_updates(params, updates)\n"
    )
    b = p.module_scope.bindings["result"][-1]
    v = p.evaluator.value(b.value, None)
    assert [x.shape for x in v.items] == [Shape((5,)), Shape(())]


def test_a_dict_updated_in_place_has_the_items_it_was_given():
    source = (
        "import jax.numpy as jnp\nR = {'a': 6, 'b': 4}\n"
        "def main(extra):\n"
        "    systems = {k: jnp.zeros((n, n)) for k, n in R.items()}\n"
        "    systems.update({'c': jnp.ones((3, 3))}, d=jnp.ones(2))\n"
        "    return systems\n"
    )
    v = value_of(source + "result = main(1)\n")
    assert [(k, x.shape) for k, x in v.items] == [
        ("a", Shape((6, 6))),
        ("b", Shape((4, 4))),
        ("c", Shape((3, 3))),
        ("d", Shape((2,))),
    ]
    unknown = source.replace("{'c': jnp.ones((3, 3))}, d=jnp.ones(2)", "extra")
    assert value_of(unknown + "result = main(x)\n") is UNKNOWN  # updated with what is not known
