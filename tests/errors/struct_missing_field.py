# expect: E921 line 14
import kdsl
from kdsl import Float32, Pointer


@kdsl.struct
class Pair:
    x: Float32
    y: Float32


@kdsl.kernel
def bad(out: Pointer[Pair]):
    out[0] = Pair(1.0)
