# expect: E312 line 10
import kdsl
from kdsl import Float16, Float32, Int32, Pointer, block_idx, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], out: Pointer[Float16], n: Int32):
    i = block_idx.x * 256 + thread_idx.x
    if i < n:
        v: Float16 = x[i]
        out[i] = v
