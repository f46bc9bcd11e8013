# expect: E250 line 11
import kdsl
from kdsl import Float32, Int32, Pointer, Uint32, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[Uint32], n: Int32):
    i = thread_idx.x
    out[i] = kdsl.byte_perm(x[i], 0, 0x3210)
