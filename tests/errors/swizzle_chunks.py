# expect: E807 line 9
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(out: Pointer[Int32]):
    tid = thread_idx.x
    out[tid] = kdsl.swizzle(tid, 0, 3)
