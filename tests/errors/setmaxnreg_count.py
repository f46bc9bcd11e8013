# expect: E814 line 8
import kdsl
from kdsl import BFloat16, BFloat16x8, Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Float32]):
    kdsl.setmaxnreg(250)
    out[0] = 1.0
