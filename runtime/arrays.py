"""Device arrays from CuPy, PyTorch, ``__cuda_array_interface__`` or DLPack.

``describe(value)`` returns what the launcher needs to know about an array
argument (pointer, dtype, shape, strides in elements, contiguity, device) or
None for something that is not a device array.  The launcher's fast path
handles CuPy arrays and PyTorch tensors directly; this module is the general,
slower path and the place that knows each library's spelling.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from kdsl.transpile.core.types import BY_SHORT, SCALAR_TYPES

NUMPY_TO_KDSL = {t.np_dtype: t for t in SCALAR_TYPES if t.np_dtype is not None}
TORCH_NAMES = {
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "bool": "bool",
    "float8_e4m3fn": "f8e4m3fn",
    "float8_e5m2": "f8e5m2",
    "float8_e4m3fnuz": "f8e4m3fnuz",
    "float8_e8m0fnu": "f8e8m0fnu",
}


@dataclass(frozen=True)
class ArrayInfo:
    ptr: int
    dtype: object  # a kdsl scalar type, or None when kdsl has no such type
    shape: tuple
    strides: tuple | None  # in elements; None: not whole elements
    contiguous: bool
    device: int | None  # None: host memory
    library: str


def kdsl_dtype(dtype):
    """The kdsl type of a numpy/CuPy dtype or a torch dtype (None if none)."""
    try:
        return NUMPY_TO_KDSL.get(np.dtype(dtype))
    except TypeError:
        pass
    name = str(dtype).replace("torch.", "")

    short = TORCH_NAMES.get(name)
    return BY_SHORT.get(short) if short else None


def _contiguous(shape, strides) -> bool:
    if strides is None:
        return False
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def _elements(byte_strides, itemsize):
    """Byte strides in elements (None when one is not a whole number of them)."""
    if any(s % itemsize for s in byte_strides):
        return None
    return tuple(s // itemsize for s in byte_strides)


def describe(value) -> ArrayInfo | None:
    """What kdsl needs of a device array argument (None: not an array)."""
    import cupy

    if isinstance(value, cupy.ndarray):
        strides = _elements(value.strides, value.dtype.itemsize)
        return ArrayInfo(
            value.data.ptr,
            kdsl_dtype(value.dtype),
            value.shape,
            strides,
            value.flags.c_contiguous and strides is not None,
            value.device.id,
            "cupy",
        )
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return ArrayInfo(
            value.data_ptr(),
            kdsl_dtype(value.dtype),
            tuple(value.shape),
            tuple(value.stride()),
            value.is_contiguous(),
            value.device.index if value.is_cuda else None,
            "torch",
        )
    if isinstance(value, np.ndarray):
        return ArrayInfo(
            value.ctypes.data,
            kdsl_dtype(value.dtype),
            value.shape,
            _elements(value.strides, value.itemsize),
            value.flags.c_contiguous,
            None,
            "numpy",
        )
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        dtype = np.dtype(cai["typestr"])
        shape = tuple(cai["shape"])
        strides = cai.get("strides")
        strides = _elements(strides, dtype.itemsize) if strides else _c_strides(shape)
        return ArrayInfo(
            cai["data"][0],
            kdsl_dtype(dtype),
            shape,
            strides,
            _contiguous(shape, strides),
            _device_of_pointer(cai["data"][0]),
            "cuda_array_interface",
        )
    if hasattr(value, "__dlpack__"):
        device_of = getattr(value, "__dlpack_device__", None)
        if device_of is not None and device_of()[0] not in _DLPACK_DEVICE_TYPES:
            return ArrayInfo(0, None, (), (), True, None, "DLPack")  # host memory
        return describe(cupy.from_dlpack(value))
    return None


_DLPACK_DEVICE_TYPES = (2, 13)  # kDLCUDA, kDLCUDAManaged


def _c_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


def _device_of_pointer(ptr: int):
    import cupy

    try:
        attrs = cupy.cuda.runtime.pointerGetAttributes(ptr)
    except Exception:
        return None
    return attrs.device if attrs.type in (2, 3) else None  # device or managed
