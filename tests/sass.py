"""SASS of generated kernels without a GPU: NVRTC's cubin (the runtime's own
compile path and options) disassembled by ``nvdisasm`` from the
``nvidia-cuda-nvdisasm`` pip package.  Speed guards read it: 128-bit global
accesses, no local-memory spills, tensor-core instructions."""

from __future__ import annotations

import re
import struct
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kdsl.runtime.compile import cubin_for


@lru_cache(maxsize=None)
def nvdisasm() -> str:
    import nvidia

    for root in nvidia.__path__:
        for path in sorted(Path(root).glob("**/bin/nvdisasm")):
            return str(path)
    raise RuntimeError("nvdisasm not found: pip install nvidia-cuda-nvdisasm")


@dataclass(frozen=True)
class Sass:
    """The disassembly of one instance; ``count(pattern)`` counts instruction
    lines matching a regular expression over their opcodes and operands."""

    text: str

    @property
    def instructions(self) -> list[str]:
        return [
            m.group(1).strip()
            for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+([^;]*);", self.text)
        ]

    def count(self, pattern: str) -> int:
        rx = re.compile(pattern)
        return sum(1 for ins in self.instructions if rx.search(ins))

    @property
    def functions(self) -> list[str]:
        """The names of the functions (kernels and any callee not inlined)."""
        return re.findall(r"\.section\s+\.text\.([^,\s]+),", self.text)

    def function(self, name: str) -> "Sass":
        """The disassembly of one function of a cubin of several."""
        parts = re.split(r"(?m)^\s*\.section\s+\.text\.([^,\s]+),.*$", self.text)
        for at in range(1, len(parts), 2):
            if parts[at] == name:
                return Sass(parts[at + 1])
        raise KeyError(f"no function {name} in the cubin: {self.functions}")

    @property
    def code_size(self) -> int:
        """Instructions, the NOPs that pad the end of a function left out."""
        return sum(1 for ins in self.instructions if ins.split()[0] != "NOP")

    @property
    def spills(self) -> int:
        """Local-memory loads and stores (register spills or local arrays)."""
        return self.count(r"\b(LDL|STL)\b")


def _whole_elf(cubin: bytes) -> bytes:
    """CuPy's ``getCUBIN`` drops the image's last byte (a zero of the last
    program header; the driver does not mind, nvdisasm does): pad the image
    to the end of its section and program header tables."""
    phoff, shoff = struct.unpack_from("<QQ", cubin, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", cubin, 0x36)
    end = max(phoff + phentsize * phnum, shoff + shentsize * shnum)
    return cubin + bytes(max(0, end - len(cubin)))


def sass_of(inst, arch: str = "sm_90") -> Sass:
    """Disassemble a ``KernelInstance`` compiled as the runtime compiles it."""
    return _disassemble(cubin_for(inst, arch))


def registers_of(inst, arch: str = "sm_90") -> int:
    """The registers a thread of the instance's kernel uses, as ptxas
    allotted them (what ``cuobjdump --dump-resource-usage`` prints as REG)."""
    return _register_count(cubin_for(inst, arch))


def _register_count(cubin: bytes) -> int:
    """EIATTR_REGCOUNT of the cubin's one kernel, from its ``.nv.info``
    section: records of a format byte, an attribute byte and (format 4,
    EIFMT_SVAL) a 16-bit size and that many bytes; REGCOUNT (0x2f) holds the
    kernel's symbol index and the count, two 32-bit words."""
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [
        struct.unpack_from("<IIQQQQ", cubin, shoff + i * shentsize)
        for i in range(shnum)
    ]
    names = headers[shstrndx][4]  # the section-name table's file offset
    sizes = {1: 2, 2: 3, 3: 4}  # record lengths of the formats without a size
    for name_at, _, _, _, offset, size in headers:
        name = cubin[names + name_at : cubin.index(b"\0", names + name_at)]
        if name != b".nv.info":
            continue
        info, i = cubin[offset : offset + size], 0
        while i < len(info):
            fmt, attr = info[i], info[i + 1]
            if fmt != 4:
                i += sizes[fmt]
                continue
            length = struct.unpack_from("<H", info, i + 2)[0]
            if attr == 0x2F:
                return struct.unpack_from("<I", info, i + 8)[0]
            i += 4 + length
    raise ValueError("no EIATTR_REGCOUNT in the cubin's .nv.info")


def sass_of_source(source: str, name: str, arch: str = "sm_90") -> Sass:
    """Disassemble CUDA source (a variant of an instance's) compiled with
    kdsl's NVRTC options."""
    from kdsl.runtime.nvrtc import compile_to_cubin

    return _disassemble(compile_to_cubin(source, name, arch=arch))


def sass_of_cubin(cubin: bytes) -> Sass:
    """Disassemble a cubin compiled elsewhere (an original's, say)."""
    return _disassemble(cubin)


def _disassemble(cubin: bytes) -> Sass:
    cubin = _whole_elf(cubin)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run(
            [nvdisasm(), "-c", f.name], capture_output=True, text=True, check=True
        )
    return Sass(out.stdout)
