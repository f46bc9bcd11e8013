# expect: E810 line 12
import kdsl
from kdsl import BFloat16, BFloat16x8, Float16x8, Float32, Pointer


@kdsl.kernel
def bad(out: Pointer[Float32]):
    a = kdsl.shared_array(BFloat16x8, (64, 8))
    acc = kdsl.local_array(Float32, (64,))
    d = kdsl.wgmma_desc(a, (0, 0))
    frag = Float16x8(0.0)  # A's fragment must be of T: BFloat16x8
    kdsl.wgmma_mma_async(acc, frag, d, BFloat16)
