# expect: E248 line 11
import kdsl
from kdsl import Int32, Pointer, Uint32, thread_idx


@kdsl.kernel
def bad(x: Pointer[Int32], out: Pointer[Uint32]):
    i = thread_idx.x
    m = Uint32(0)
    # computed once into a variable: not inside an arm of a conditional
    m = kdsl.match_all(x[i])[0] if x[i] > 0 else m
    out[i] = m
