"""``parser.parse_args()``: a Namespace of the flags' defaults (model/cli_args.py)."""

from jaxlint.base.literals import UNKNOWN
from jaxlint.model.abstract import Const, Struct, Tuple

from .helpers import value_of

HEAD = "import argparse\n"


def test_each_flag_holds_its_default_under_its_dest():
    src = HEAD + (
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('--eval-batch-size', type=int, default=32)\n"
        "p.add_argument('-l', '--lr', type=float, default='0.5')\n"
        "p.add_argument('--out', dest='output_dir', default='runs')\n"
        "p.add_argument('--fast', action='store_true')\n"
        "p.add_argument('--seed', type=int)\n"
        "p.add_argument('--steps', type=int, required=True)\n"
        "p.add_argument('data')\n"
        "p.set_defaults(members=5)\n"
        "args = p.parse_args()\n"
        "result = (args.eval_batch_size, args.lr, args.output_dir, args.fast, args.seed, args.steps, args.data, args.members)\n"
    )
    got = value_of(src)
    assert type(got) is Tuple
    assert got.items == (
        Const(32),
        Const(0.5),  # argparse converts a string default with ``type``
        Const("runs"),
        Const(False),
        Const(None),
        UNKNOWN,  # required: no default
        UNKNOWN,  # positional: always given
        Const(5),
    )


def test_a_parser_out_of_view_or_given_its_own_arguments_is_unknown():
    helper = HEAD + (
        "def add_model_flags(p):\n    p.add_argument('--hidden', type=int, default=16)\n"
        "p = argparse.ArgumentParser()\nadd_model_flags(p)\nresult = p.parse_args()\n"
    )
    assert value_of(helper) is UNKNOWN
    argv = (
        HEAD + "p = argparse.ArgumentParser()\np.add_argument('--n', default=1)\nresult = p.parse_args(['--n', '2'])\n"
    )
    assert value_of(argv) is UNKNOWN
    known = HEAD + "p = argparse.ArgumentParser()\np.add_argument('--n', default=1)\nresult = p.parse_known_args()\n"
    pair = value_of(known)
    assert type(pair) is Tuple and type(pair.items[0]) is Struct and pair.items[0].get("n") == Const(1)


def test_args_none_is_the_command_line():
    # ``main(argv=None)`` run as a script: argparse reads the command line, so the defaults
    src = HEAD + (
        "def parse(argv=None):\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--temperature', type=float, default=None)\n"
        "    p.add_argument('--seed', type=int, default=0)\n"
        "    return p.parse_args(argv)\n"
        "def main(argv=None):\n    args = parse(argv)\n    return args.seed, args.temperature is None\n"
    )
    assert value_of(src + "result = main()\n") == Tuple((Const(0), Const(True)))
    given = value_of(src + "result = main(['--seed', '3'])\n")
    assert given.items[0] is UNKNOWN and type(given.items[1]) is not Const


def test_a_parser_a_builder_def_returns():
    # ``build_parser().parse_args()``, or its result bound first: the builder's own parser
    builder = HEAD + (
        "def build_parser():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--axis-name', default='replicas')\n    return p\n"
    )
    direct = value_of(builder + "result = build_parser().parse_args().axis_name\n")
    assert direct == Const("replicas")
    bound = value_of(builder + "parser = build_parser()\nresult = parser.parse_args().axis_name\n")
    assert bound == Const("replicas")
    # a builder that hands its parser to a helper, or returns one of two parsers: unknown
    helper = HEAD + (
        "def add_flags(p):\n    p.add_argument('--n', default=1)\n"
        "def build():\n    p = argparse.ArgumentParser()\n    add_flags(p)\n    return p\n"
        "result = build().parse_args()\n"
    )
    assert value_of(helper) is UNKNOWN
    two = HEAD + (
        "def build(fast):\n    a = argparse.ArgumentParser()\n    a.add_argument('--n', default=1)\n"
        "    b = argparse.ArgumentParser()\n    b.add_argument('--n', default=2)\n"
        "    if fast:\n        return a\n    return b\n"
        "result = build(True).parse_args().n\n"
    )
    assert type(value_of(two)) is not Const
