# expect: E810 line 10
import kdsl
from kdsl import BFloat16, BFloat16x8, Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    acc = kdsl.local_array(Float32, (64,))
    d = thread_idx.x
    kdsl.wgmma_mma_async(acc, d, d, BFloat16)
