"""Devices: how many there are (the device-count symbol ``dims.DEVICES``: what pmap's
leading axis must be), the list of them, and putting values on them.

``device_put(x)`` is ``x`` on the device and ``device_get(x)`` ``x`` on the host (a NumPy
array; a traced ``x`` it gives back as it is). ``device_put_replicated(x, devices)`` stacks one copy per device on a new leading
axis and ``device_put_sharded(shards, devices)`` stacks the shards; jax 0.10.2 no longer
has them, so their signatures are written here, as jax 0.4.35 declares them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import Array, External, List, Scalar, Seq, Tuple, join_all
from ..signature import Signature
from . import Call, Op, register
from .build import Entries, op
from .control import stacked
from .trees import rebuild


def count(call: Call) -> Any:
    return Scalar("int", dims.DEVICES)


def devices(call: Call) -> Any:
    return Seq(dims.DEVICES, External("jax.Device"))


def placed(tree: Any, host: bool) -> Any:
    """The same pytree with its arrays on the device (or, ``host``, on the host: but a
    traced array stays what it is, as ``device_get`` leaves a tracer)."""

    def one(path: tuple[Any, ...], leaf: Any) -> Any:
        if type(leaf) is not Array or (host and leaf.traced):
            return leaf
        return replace(leaf, host=host)

    return rebuild(tree, one)


def _length(devices: Any) -> dims.Dim:
    if type(devices) is Seq:
        return devices.length
    if type(devices) in (Tuple, List):
        return len(devices.items)
    return None


def device_put(call: Call) -> Any:
    return placed(call.arg("x"), False)


def device_get(call: Call) -> Any:
    return placed(call.arg("x"), True)


def replicated(call: Call) -> Any:
    return stacked(placed(call.arg("x"), False), _length(call.arg("devices")))


def sharded(call: Call) -> Any:
    shards = call.arg("shards")
    if type(shards) not in (Tuple, List) or not shards.items:
        return UNKNOWN
    return stacked(placed(join_all(list(shards.items)), False), len(shards.items))


TABLE: Entries = {
    "jax.device_count": lambda: op("jax.device_count", count),
    "jax.local_device_count": lambda: op("jax.local_device_count", count),
    "jax.devices": lambda: op("jax.devices", devices),
    "jax.local_devices": lambda: op("jax.local_devices", devices),
    "jax.device_put": lambda: op("jax.device_put", device_put),
    "jax.device_get": lambda: op("jax.device_get", device_get),
    "jax.device_put_replicated": lambda: Op(Signature.of("x", "devices"), replicated),
    "jax.device_put_sharded": lambda: Op(Signature.of("shards", "devices"), sharded),
}

register(TABLE)
