# expect: E812 line 9
import kdsl
from kdsl import BFloat16, BFloat16x8, Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    a = kdsl.shared_array(BFloat16x8, (64, 8))
    d = kdsl.wgmma_desc(a, (0, 0), sbo=1000)
    out[0] = Float32(d)
