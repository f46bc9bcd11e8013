# expect: E804 line 9
import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(src: Pointer[Float32], out: Pointer[Float32]):
    tid = thread_idx.x
    kdsl.cp_async(out, tid, src, tid)
