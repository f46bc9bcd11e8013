# expect: E102 line 10
import kdsl
from kdsl import Float32, Int32, Pointer, block_idx, thread_idx


@kdsl.kernel
def bad(x: Pointer[kdsl.Float8E4M3FN], out: Pointer[Float32], n: Int32):
    i = block_idx.x * 256 + thread_idx.x
    if i < n:
        out[i] = x[i] + x[i]
