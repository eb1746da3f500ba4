"""Library stubs.

Each ``<module>.stub`` is Python source that says what a library module's functions and
classes do, in the library's own terms, for the semantic model to read when the linted
project does not contain that module (``jaxlint.lint.imports``). A stub is read, never run.

A stub keeps the library's signatures and what its code computes that a rule can use
(a field's initial value, a leading device axis, which fields are pytree children), and
leaves out what no rule reads (logging, sharding annotations, fast paths). Each stub names
the library version it follows. Where a stub and the library disagree, the library is
right: ``tests/test_stubs.py`` checks each stub's signatures and fields against the library
(installed with the test extra).
"""

# The stubs' functions and classes that consume a PRNG key argument on every path (what
# JAX502 reads through them): the pre-filter and the slicer keep the code that names them,
# as they keep code naming ``jax.random``. tests/test_stubs.py checks that this is exactly
# what the model finds in the stubs.
KEY_CONSUMERS = ("equinox.nn.Linear", "equinox.nn.MLP", "flax.training.common_utils.shard_prng_key")

# The stubs' functions that make a map (``jax.vmap`` in the library's terms), with the JAX
# map they make: the vmap rules take a call of one for an application (their ``about``, and
# so the pre-filter and the slicer, name them). tests/test_stubs.py checks that this is
# exactly what the model finds in the stubs.
MAPS = {"equinox.filter_vmap": "jax.vmap"}

# The stubs' functions that compile their function with only the JAX and NumPy array leaves
# of its arguments traced, every other leaf static (equinox's ``filter_jit``), with the name
# messages give them. The stub says what a call computes (the function's value for the same
# arguments); which of the function's values are tracers is read here (``traced.py``), as
# ``transforms.TABLE`` says it of ``jax.jit``.
ARRAY_JITS = {"equinox.filter_jit": "eqx.filter_jit"}

# The stubs' functions that are JAX's grads of their function's first argument, differentiating
# only its inexact array leaves (equinox's ``filter_grad``/``filter_value_and_grad``: an int or
# bool leaf gets no gradient and raises nothing), with the JAX transform they apply: the JAX4xx
# rules take a call of one for an application of that transform (``Program.value``), the
# argnums rules excepted. tests/test_stubs.py checks that the stubs make exactly these.
GRADS = {"equinox.filter_grad": "jax.grad", "equinox.filter_value_and_grad": "jax.value_and_grad"}
