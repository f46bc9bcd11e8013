# expect: E337 line 9
import kdsl
from kdsl import Boolean, Int32, Pointer, Uint8, thread_idx


@kdsl.kernel
def bad(raw: Pointer[Uint8], out: Pointer[Int32]):
    i = thread_idx.x
    flags = raw.view(Boolean)
    out[i] = Int32(flags[i])
