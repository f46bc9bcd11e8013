# expect: E401 line 7
import kdsl
from kdsl import Int32, Pointer, block_idx, thread_idx


@kdsl.kernel
def bad(x: Pointer[kdsl.Float], out: Pointer[kdsl.Float], n: Int32):
    i = block_idx.x * 256 + thread_idx.x
    out[i] = x[i]
