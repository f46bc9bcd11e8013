# expect: E119 line 9
import kdsl
from kdsl import Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[kdsl.Float4E2M1FN], out: Pointer[kdsl.Uint32]):
    i = thread_idx.x
    out[i] = x.vec(8)[i].bitcast(kdsl.Uint32)
