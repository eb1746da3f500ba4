"""Dicts changed by item stores (jaxlint/model/stored.py)."""

from jaxlint.base.literals import UNKNOWN
from jaxlint.model.abstract import Const, Dict

from .helpers import value_of

HEAD = "D = {'t': 0.8, 'p': 0.05}\n"


def _run(body: str, call: str = "f()") -> object:
    lines = "".join(f"    {line}\n" for line in body.splitlines())
    return value_of(HEAD + f"def f(flag=None):\n{lines}    return d\nresult = {call}\n")


def test_a_store_that_runs_changes_the_dict_the_read_sees():
    assert _run("d = dict(D)\nd['t'] = 1.0") == Dict((("t", Const(1.0)), ("p", Const(0.05))))
    assert _run("d = dict(D)\nd['new'] = 1") == Dict((("t", Const(0.8)), ("p", Const(0.05)), ("new", Const(1))))


def test_a_store_under_an_if_runs_as_the_test_says_or_joins():
    # ``flag`` is None: the store does not run; given True it does
    assert _run("d = dict(D)\nif flag:\n    d['t'] = 2.0") == Dict((("t", Const(0.8)), ("p", Const(0.05))))
    assert _run("d = dict(D)\nif flag:\n    d['t'] = 2.0", "f(True)") == Dict((("t", Const(2.0)), ("p", Const(0.05))))
    # a test the model cannot decide: both outcomes, joined per key
    joined = _run("d = dict(D)\nif len(unknown_list):\n    d['t'] = 0.8\n    d['p'] = 3.0")
    assert type(joined) is Dict and joined.get("t") == Const(0.8) and joined.get("p") != Const(0.05)


def test_stores_in_a_loop_over_known_items_run_once_per_item():
    layers = _run(
        "d = {}\nfor i, (a, b) in enumerate(zip((1, 4), (4, 2))):\n    n = a * b\n    d[f'w{i}'] = n\n    d[f'b{i}'] = b"
    )
    assert layers == Dict((("w0", Const(4)), ("b0", Const(4)), ("w1", Const(8)), ("b1", Const(2))))
    assert _run("d = dict(D)\nfor i in range(3):\n    d['t'] = i") == Dict((("t", Const(2)), ("p", Const(0.05))))


def test_what_the_model_cannot_order_is_unknown():
    assert _run("d = dict(D)\nfor i in range(3):\n    if i:\n        d['t'] = 2.0") is UNKNOWN
    assert _run("d = dict(D)\nfor i in range(3):\n    d['t'] = 2.0\n    if i:\n        break") is UNKNOWN
    assert _run("d = dict(D)\nfor i in unknown_list:\n    d['t'] = i") is UNKNOWN
    # a name the body carries from one iteration to the next: not one item at a time
    assert _run("d = {}\nn = -1\nfor w in (4, 6):\n    n = n + 1\n    d[n] = w") is UNKNOWN
    assert _run("d = dict(D)\nfor i in range(3):\n    d['t'] += i") is UNKNOWN
    assert _run("d = dict(D)\nd.update(extra)") is UNKNOWN  # updated with what is not known
    assert _run("d = dict(D)\nd[unknown_key] = 1") is UNKNOWN
    assert _run("d = dict(D)\nd['t'] += 1") is UNKNOWN


def test_an_update_statement_stores_each_item_it_is_given():
    assert _run("d = dict(D)\nd.update(t=1)") == Dict((("t", Const(1)), ("p", Const(0.05))))
    assert _run("d = dict(D)\nd.update({'q': 2}, t=3)") == Dict((("t", Const(3)), ("p", Const(0.05)), ("q", Const(2))))
