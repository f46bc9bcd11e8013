# expect: E813 line 9
import kdsl
from kdsl import BFloat16, BFloat16x8, Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    kdsl.wgmma_commit()
    kdsl.wgmma_wait(thread_idx.x)
