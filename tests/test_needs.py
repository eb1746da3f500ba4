"""A rule's declaration (about, reads, context_words) gives the pre-filter's and the slicer's knobs."""

from pathlib import Path

import pytest

from jaxlint.lint.rule import Rule
from jaxlint.plan.needs import anchors_of, reads_of, trigger_words


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
    r = reads_of(("call graph", "call paths"))
    assert (r.callers, r.call_paths) == ("all", True) and not reads_of("call graph").call_paths


def test_the_engine_records_call_paths_for_the_rules_that_read_them():
    from jaxlint.lint.registry import all_rules

    assert sorted(r.code for r in all_rules() if r.call_paths) == ["JAX201", "JAX501", "JAX503"]


def test_the_map_rules_read_forwarders_and_the_files_that_spell_them():
    from jaxlint.lint.registry import all_rules

    readers = [r for r in all_rules() if r.forwarders]
    assert sorted(r.code for r in readers) == ["JAX101", "JAX102", "JAX103", "JAX104", "JAX105", "JAX203", "JAX204"]
    assert all("(*" in r.triggers and r.callers == "direct" for r in readers)
    assert all(("vmap" if r.code.startswith("JAX1") else "pmap") in r.triggers for r in readers)
    r = reads_of(("calls", "forwarders"))
    assert (r.callers, r.follows_references, r.forwarders) == ("direct", True, True)


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


def test_a_narrower_trigger_set_by_hand_wins_and_the_old_spelling_is_refused():
    class Narrower(Rule):
        about = ("jax.custom_vjp",)
        triggers = ("nondiff_argn",)

    assert Narrower.triggers == ("nondiff_argn",) and Narrower.anchors == frozenset({"custom_vjp"})

    class Catalogue(Rule):
        reads = "statement"
        anchors = frozenset()
        triggers = ("xmap",)

    assert (Catalogue.triggers, Catalogue.anchors, Catalogue.follows_references) == (("xmap",), frozenset(), False)

    for knob, value in (
        ("callers", "direct"),
        ("method_anchors", frozenset({"defvjp"})),
        ("target_transforms", frozenset({"jit"})),
        ("follows_references", False),
        ("call_paths", True),
    ):
        with pytest.raises(TypeError, match=f"Old sets {knob} by hand: declare `about` and `reads` instead"):
            type("Old", (Rule,), {"triggers": ("vmap",), knob: value})

    class Whole(Rule):
        pass

    assert (Whole.triggers, Whole.anchors) == ((), None)


def test_a_wrong_declaration_fails_when_the_class_is_made():
    with pytest.raises(ValueError, match=r"Bad.reads: \['callers'\] is not one of 'statement'"):
        type("Bad", (Rule,), {"reads": "callers"})
    with pytest.raises(TypeError, match=r"must be a tuple of API names, not the string 'jax\.vmap'"):
        type("Bad", (Rule,), {"about": "jax.vmap"})
    with pytest.raises(ValueError, match=r"'jax\.vmap\(' is not an API name"):
        type("Bad", (Rule,), {"about": ("jax.vmap(",)})


# Where a rule may still set a slicer knob by hand, with the reason at the rule: the
# catalogue rules choose their seeds from the catalogue, and JAX306 reports only where its
# two options are spelled (narrower than what its `about` derives).
HAND_SET = {
    ("rules/custom_derivatives/jax306_nondiff_argnums_array.py", "triggers"),
    ("rules/migration/jax801_removed_api.py", "triggers"),
    ("rules/migration/jax802_deprecated_api.py", "triggers"),
    ("rules/migration/analysis.py", "anchors"),
}
KNOBS = {"triggers", "anchors", "method_anchors", "callers", "target_transforms", "follows_references", "call_paths"}


def _hand_set_knobs(root: str) -> set[tuple[str, str]]:
    import ast
    import os

    out = set()
    for d, _, files in os.walk(os.path.join(root, "rules")):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            for cls in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
                if isinstance(cls, ast.ClassDef):
                    for stmt in cls.body:
                        targets = (
                            stmt.targets
                            if isinstance(stmt, ast.Assign)
                            else [stmt.target]
                            if isinstance(stmt, ast.AnnAssign)
                            else []
                        )
                        out |= {
                            (os.path.relpath(path, root), t.id)
                            for t in targets
                            if isinstance(t, ast.Name) and t.id in KNOBS
                        }
    return out


def test_rules_declare_what_they_are_about_and_set_knobs_by_hand_only_where_listed():
    import os

    from jaxlint.lint.registry import all_rules

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    assert _hand_set_knobs(root) == HAND_SET
    undeclared = sorted(r.code for r in all_rules() if not r.about and not r.code.startswith("JAX0"))
    assert undeclared == ["JAX801", "JAX802"]  # catalogue-driven: see rules/migration/analysis.py seeds()
