"""A rule's declaration (about, reads, context_words) gives the pre-filter's and the slicer's knobs."""

import pytest

from jaxlint.plan.needs import anchors_of, reads_of, trigger_words
from jaxlint.lint.rule import Rule


def test_triggers_are_last_names_and_a_word_containing_another_is_dropped():
    assert trigger_words(("jax.grad", "jax.value_and_grad", "jax.jacrev")) == ("grad", "jacrev")
    assert trigger_words(("jax.vmap",), ("dot", " @ ")) == (" @ ", "dot", "vmap")


def test_a_module_entry_stands_for_its_apis_in_the_prefilter_but_not_in_the_anchors():
    about = ("jax.random.*", "jax.random.split", "jax.random.t", "jax.jit")
    assert trigger_words(about) == ("jit", "random")
    assert anchors_of(about) == (frozenset({"split", "t", "jit"}), frozenset())


def test_a_method_entry_is_a_method_anchor():
    assert anchors_of(("jax.custom_vjp", ".defvjp")) == (frozenset({"custom_vjp", "defvjp"}), frozenset({"defvjp"}))
    assert trigger_words(("jax.custom_vjp", ".defvjp")) == ("custom_vjp", "defvjp")


def test_reads_words_combine():
    assert reads_of("targets") == reads_of(("targets",))
    r = reads_of(("calls", "jit of targets"))
    assert (r.callers, r.target_transforms, r.follows_references) == ("direct", frozenset({"jit", "pjit"}), True)
    r = reads_of("statement")
    assert (r.callers, r.target_transforms, r.follows_references) == ("", frozenset(), False)
    assert reads_of(("calls", "call graph")).callers == "all"


def test_a_declaring_rule_gets_its_knobs():
    class Declared(Rule):
        about = ("jax.lax.psum", "jax.lax.psum_scatter")
        reads = "call graph"
        context_words = ("pmap",)

    assert Declared.triggers == ("pmap", "psum")
    assert Declared.anchors == frozenset({"psum", "psum_scatter"})
    assert (Declared.callers, Declared.target_transforms, Declared.follows_references) == ("all", frozenset(), True)

    class Sub(Declared):
        pass

    assert (Sub.triggers, Sub.anchors, Sub.callers) == (Declared.triggers, Declared.anchors, "all")


def test_a_knob_set_by_hand_wins_and_the_old_spelling_still_works():
    class Narrower(Rule):
        about = ("jax.custom_vjp",)
        triggers = ("nondiff_argn",)

    assert Narrower.triggers == ("nondiff_argn",) and Narrower.anchors == frozenset({"custom_vjp"})

    class Old(Rule):
        triggers = ("vmap",)
        anchors = frozenset({"vmap"})
        callers = "direct"

    assert (Old.triggers, Old.anchors, Old.callers, Old.follows_references) == (("vmap",), frozenset({"vmap"}), "direct", True)

    class Whole(Rule):
        pass

    assert (Whole.triggers, Whole.anchors) == ((), None)


def test_a_wrong_declaration_fails_when_the_class_is_made():
    with pytest.raises(ValueError, match=r"Bad.reads: \['callers'\] is not one of 'statement'"):
        type("Bad", (Rule,), {"reads": "callers"})
    with pytest.raises(TypeError, match="must be a tuple of API names, not the string 'jax.vmap'"):
        type("Bad", (Rule,), {"about": "jax.vmap"})
    with pytest.raises(ValueError, match=r"'jax\.vmap\(' is not an API name"):
        type("Bad", (Rule,), {"about": ("jax.vmap(",)})
