"""``kdsl.tensor_map``: the host half of TMA.  A tensor map (the driver's
``CUtensorMap``, 128 opaque bytes) describes a 2-d tensor in global memory
and the box a ``kdsl.tma_load`` copies out of it; the driver's
``cuTensorMapEncodeTiled`` writes it, reached through NVIDIA's
``cuda-bindings`` package (``cuda.bindings.driver``; imported only here,
only when a map is built: transpiling and compiling need no driver).

The map travels to the kernel by value, as its ``const __grid_constant__
kdsl::TensorMap`` parameter: CuPy passes a one-element numpy array of a
128-byte void dtype by value (its bytes are copied into the launch's
parameter buffer).  A map holds a reference to its array (its address is
baked in): keep using the array it was built on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kdsl.runtime import arrays
from kdsl.transpile.core.types import (
    BFloat16,
    Float16,
    Float32,
    Float64,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
)
from kdsl.transpile.errors import error

BYTES = 128  # sizeof(CUtensorMap)
MAX_BOX = 256  # elements along each dimension of a box
SWIZZLES = (0, 32, 64, 128)  # bytes; 0: no swizzle
# kdsl type -> the name of its CUtensorMapDataType
DATA_TYPES = {
    Float16: "FLOAT16",
    BFloat16: "BFLOAT16",
    Float32: "FLOAT32",
    Float64: "FLOAT64",
    Int32: "INT32",
    Int64: "INT64",
    Uint8: "UINT8",
    Uint16: "UINT16",
    Uint32: "UINT32",
    Uint64: "UINT64",
}


@dataclass(frozen=True)
class Encoding:
    """What ``cuTensorMapEncodeTiled`` is given, innermost dimension first."""

    data_type: str
    address: int
    dims: tuple  # (columns, rows)
    row_stride: int  # bytes
    box: tuple  # (columns, rows)
    swizzle: int


class TensorMapArg:
    """A tensor map built by :func:`tensor_map`: pass it where the kernel
    takes a ``kdsl.TensorMap``."""

    __slots__ = ("array", "dtype", "shape", "box", "swizzle", "device", "param")

    def __init__(self, array, info, box, swizzle, param):
        self.array = array  # kept alive: the map holds its address
        self.dtype = info.dtype
        self.shape = tuple(info.shape)
        self.box = box
        self.swizzle = swizzle
        self.device = info.device
        self.param = param  # (1,) array of one 128-byte void: passed by value

    @property
    def box_bytes(self) -> int:
        """The bytes one ``tma_load`` of a whole box brings (its expect_tx)."""
        return self.box[0] * self.box[1] * self.dtype.width // 8

    def __repr__(self) -> str:
        return (
            f"kdsl.tensor_map({self.dtype.__name__} array of shape {self.shape}, "
            f"box={self.box}, swizzle={self.swizzle})"
        )


def plan(info, box, swizzle) -> Encoding:
    """The encoding of a map of the array ``info`` (an ``arrays.ArrayInfo``)
    with ``box`` = (rows, columns), checked: E841 … E844."""
    if info.device is None:
        raise error("tensor-map-array", got=f"a host ({info.library}) array", detail="")
    if len(info.shape) != 2:
        raise error(
            "tensor-map-array",
            got=f"an array of {len(info.shape)} dimensions",
            detail=" (2-d only)",
        )
    if info.dtype not in DATA_TYPES:
        name = info.dtype.__name__ if info.dtype is not None else "an unknown dtype"
        raise error(
            "tensor-map-dtype",
            got=name,
            takes=", ".join(t.__name__ for t in DATA_TYPES),
        )
    if swizzle not in SWIZZLES or isinstance(swizzle, bool):
        raise error("tensor-map-box", got=f"swizzle={swizzle!r}", why="swizzle=")
    size = info.dtype.width // 8
    ok = (
        isinstance(box, tuple)
        and len(box) == 2
        and all(type(n) is int and 1 <= n <= MAX_BOX for n in box)
    )
    if not ok:
        raise error("tensor-map-box", got=f"box={box!r}", why="box=")
    rows, cols = box
    if cols * size % 16:
        raise error(
            "tensor-map-box", got=f"box={box!r}", why="a box row of 16-byte multiples"
        )
    if swizzle and cols * size > swizzle:
        raise error(
            "tensor-map-box",
            got=f"box={box!r} with swizzle={swizzle}",
            why=f"a box row within the {swizzle}-byte swizzle span",
        )
    strides = info.strides
    if strides is None or strides[1] != 1:
        raise error("tensor-map-layout", got="its columns are not contiguous")
    row_stride = strides[0] * size
    if row_stride % 16 or not 0 < row_stride < 1 << 40:
        raise error("tensor-map-layout", got=f"a row stride of {row_stride} bytes")
    if info.ptr % 16:
        raise error("tensor-map-layout", got=f"its address {info.ptr:#x}")
    return Encoding(
        DATA_TYPES[info.dtype],
        info.ptr,
        (info.shape[1], info.shape[0]),
        row_stride,
        (cols, rows),
        swizzle,
    )


def tensor_map(array, box, swizzle: int = 128) -> TensorMapArg:
    """A TMA tensor map of the row-major 2-d device ``array`` (CuPy, PyTorch
    or any ``__cuda_array_interface__`` array) whose boxes are ``box`` =
    (rows, columns), stored in shared memory with the ``swizzle`` (128, 64,
    32 or 0 bytes; a box row may not be wider).  The array's element type is
    the map's; boxes past its edges read zeros.  Needs the CUDA driver and
    the ``cuda-bindings`` package (E845 otherwise).  Maps of the same memory
    with the same box and swizzle share one encoding, made once."""
    try:
        info = arrays.describe(array)
    except Exception as e:  # noqa: BLE001 - whatever a foreign object raises
        raise error("tensor-map-array", got=type(array).__name__, detail=f": {e}")
    if info is None:
        raise error("tensor-map-array", got=type(array).__name__, detail="")
    enc = plan(info, box, swizzle)
    param = _ENCODED.get(enc)
    if param is None:
        if len(_ENCODED) >= MAX_ENCODED:  # maps made on the fly: forget them
            _ENCODED.clear()
        param = _ENCODED[enc] = _encode(enc)
    return TensorMapArg(array, info, box, swizzle, param)


# Encoding -> its 128 bytes.  The driver's encoding is a function of the
# Encoding alone (address, sizes, stride, element type, box, swizzle; no
# device or context), and through cuda-bindings' Python objects it costs
# tens of microseconds: a host function that makes the maps of its operands
# on every call (gemm_tma.matmul, gemm_int8.gemm, attention_tma.attention)
# pays it once for each tensor it sees.  The bytes are shared, never written.
_ENCODED: dict = {}
MAX_ENCODED = 4096


def _encode(enc: Encoding) -> np.ndarray:
    """The 128 bytes ``cuTensorMapEncodeTiled`` writes for ``enc``."""
    try:
        from cuda.bindings import driver
    except ImportError as e:
        raise error(
            "tensor-map-driver",
            detail=f"the cuda-bindings package is missing ({e}): pip install "
            "cuda-bindings",
        ) from None
    try:
        (status,) = driver.cuInit(0)
    except Exception as e:  # noqa: BLE001 - no driver library on this machine
        raise error("tensor-map-driver", detail=f"no CUDA driver: {e}") from None
    if status != driver.CUresult.CUDA_SUCCESS:
        raise error("tensor-map-driver", detail=f"cuInit: {status.name}")
    swizzle = {
        0: "CU_TENSOR_MAP_SWIZZLE_NONE",
        32: "CU_TENSOR_MAP_SWIZZLE_32B",
        64: "CU_TENSOR_MAP_SWIZZLE_64B",
        128: "CU_TENSOR_MAP_SWIZZLE_128B",
    }[enc.swizzle]
    status, tmap = driver.cuTensorMapEncodeTiled(
        getattr(driver.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{enc.data_type}"),
        2,
        enc.address,
        [driver.cuuint64_t(n) for n in enc.dims],
        [driver.cuuint64_t(enc.row_stride)],
        [driver.cuuint32_t(n) for n in enc.box],
        [driver.cuuint32_t(1), driver.cuuint32_t(1)],
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(driver.CUtensorMapSwizzle, swizzle),
        driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
    )
    if status != driver.CUresult.CUDA_SUCCESS:
        raise error(
            "tensor-map-driver", detail=f"cuTensorMapEncodeTiled: {status.name}"
        )
    words = np.array([int(w) for w in tmap.opaque], dtype=np.uint64)
    assert words.nbytes == BYTES
    return words.view(f"V{BYTES}")  # shape (1,): CuPy passes its bytes by value


def check_tensor_map(param, device, value):
    """A ``kdsl.TensorMap`` argument checked (built by kdsl.tensor_map, on
    this device), as CuPy passes it."""
    if not isinstance(value, TensorMapArg):
        raise error("launch-tensor-map", param=param, got=type(value).__name__)
    if value.device != device:
        raise error("launch-array-device", param=param, got=value.device, device=device)
    return value.param
