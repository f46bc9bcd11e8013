# expect: E354 line 9
import kdsl
from kdsl import Int32, Pointer


@kdsl.kernel(no_overflow=True)
def bad(out: Pointer[Int32]):
    big = Int32(1 << 30)
    out[0] = big * 4
