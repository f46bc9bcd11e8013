# expect: E120 line 9
import kdsl
from kdsl import Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[kdsl.Int8], out: Pointer[kdsl.Float64]):
    i = thread_idx.x
    out[i] = x.vec(4)[i].bitcast(kdsl.Float64)[0]
