# expect: E805 line 10
import kdsl
from kdsl import Float32, Pointer, thread_idx


@kdsl.kernel
def bad(src: Pointer[Float32]):
    tid = thread_idx.x
    s = kdsl.shared_array(Float32, (32,))
    kdsl.cp_async(s, tid, src, tid, cache="cg")
