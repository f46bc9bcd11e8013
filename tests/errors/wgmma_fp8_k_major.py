# expect: E626 line 11
import kdsl
from kdsl import Float8E4M3FN, Float32, Pointer, Uint8x16


@kdsl.kernel
def bad(out: Pointer[Float32]):
    a = kdsl.dynamic_shared_array(Uint8x16, 64 * 8)
    acc = kdsl.local_array(Float32, (64,))
    d = kdsl.wgmma_desc(a, 0)
    kdsl.wgmma_mma_async(acc, d, d, Float8E4M3FN, trans_b=True)
