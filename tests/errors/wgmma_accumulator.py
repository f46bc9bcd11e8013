# expect: E808 line 11
import kdsl
from kdsl import BFloat16, BFloat16x8, Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    a = kdsl.shared_array(BFloat16x8, (64, 8))
    acc = kdsl.local_array(Float32, (50,))
    d = kdsl.wgmma_desc(a, (0, 0))
    kdsl.wgmma_mma_async(acc, d, d, BFloat16)
