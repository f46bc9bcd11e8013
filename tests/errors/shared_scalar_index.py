# expect: E349 line 9
import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, thread_idx


@kdsl.kernel
def bad(out: Pointer[Int32]):
    total = kdsl.shared_scalar(Int32)
    total[0] = 1
    out[0] = total[()]
