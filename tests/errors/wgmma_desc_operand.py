# expect: E811 line 8
import kdsl
from kdsl import BFloat16, BFloat16x8, Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    d = kdsl.wgmma_desc(out, 0)
    out[0] = Float32(d)
