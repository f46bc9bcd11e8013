# expect: E920 line 9
import kdsl
from kdsl import Float32, Int32, Pointer


@kdsl.struct
class Bad:
    x: Float32
    n: int


@kdsl.kernel
def bad(p: Pointer[Bad], out: Pointer[Int32]):
    out[0] = 1
