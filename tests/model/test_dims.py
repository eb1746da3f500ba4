"""Symbolic sizes: normal forms, arithmetic, and what equal/different prove."""

from jaxlint.model import dims
from jaxlint.model.dims import DEVICES, Size, sym

n = sym("f.n", "n")
m = sym("f.m", "m")


def test_constants_stay_ints():
    assert dims.add(2, 3) == 5
    assert dims.mul(n, 0) == 0
    assert dims.sub(n, n) == 0
    assert isinstance(dims.add(n, 1), Size)


def test_normal_form_makes_equal_polynomials_equal():
    assert dims.add(n, m) == dims.add(m, n)
    assert dims.mul(dims.add(n, 1), 2) == dims.add(dims.mul(2, n), 2)
    assert dims.mul(n, m) == dims.mul(m, n)
    assert dims.text(dims.add(dims.mul(32, n), -1)) == "32 * n - 1"


def test_symbols_compare_by_key_not_label():
    assert sym(dims.DEVICES_KEY, "jax.device_count()") == DEVICES


def test_equal_and_different_prove_only_what_holds():
    assert dims.equal(n, n)
    assert not dims.equal(n, m) and not dims.different(n, m)  # two unknown sizes
    assert dims.different(dims.add(DEVICES, 1), DEVICES)
    assert dims.different(3, 4) and not dims.different(3, 3)
    assert not dims.different(n, 3)
    assert not dims.different(dims.mul(2, n), n)  # n may be 0
    assert dims.different(dims.add(dims.mul(2, n), 1), n)
    assert not dims.equal(None, None) and not dims.different(None, 3)


def test_exact_division_infers_a_reshape_size():
    total = dims.mul(dims.mul(32, n), 5)
    assert dims.exact_div(total, dims.mul(n, 5)) == 32
    assert dims.exact_div(dims.add(n, 1), n) is None
    assert dims.exact_div(7, 2) is None
    assert dims.floordiv(7, 2) == 3


def test_a_floor_division_that_does_not_divide_is_a_size_derived_from_its_operands():
    half = dims.floordiv(DEVICES, 2)
    assert dims.text(half) == "n_devices // 2" and dims.mentions_devices(half)
    assert dims.equal(half, dims.floordiv(DEVICES, 2))  # the same origin: the same size
    assert not dims.equal(half, DEVICES) and not dims.different(half, DEVICES)  # a derived symbol: no proof either way
    assert dims.text(dims.floordiv(16, DEVICES)) == "16 // n_devices"
    assert dims.floordiv(dims.mul(2, n), 2) == n  # exact: the polynomial divides
    assert dims.floordiv(n, 0) is None and dims.floordiv(n, 1) == n and dims.floordiv(n, None) is None
    # the device count exceeds its own share; nothing is said of other sizes
    assert dims.exceeds_share(DEVICES, half) and not dims.exceeds_share(half, DEVICES)
    assert not dims.exceeds_share(n, dims.floordiv(n, 2))  # n may be 0
    assert dims.divided(half) and not dims.divided(DEVICES) and not dims.divided(dims.floordiv(16, DEVICES))


def test_key_text_derives_symbols_from_keys():
    assert dims.key_text(DEVICES) == "1*<devices>"
    assert not dims.mentions_devices(sym("f.devices"))  # a parameter named devices
    assert dims.mentions_devices(sym(f"min({dims.key_text(DEVICES)},4)"))
