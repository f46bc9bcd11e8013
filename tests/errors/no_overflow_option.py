# expect: E473 line 6
import kdsl
from kdsl import Int32, Pointer


@kdsl.kernel(no_overflow=1)
def bad(out: Pointer[Int32]):
    out[0] = 1
