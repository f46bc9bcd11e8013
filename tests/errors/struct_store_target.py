# expect: E924 line 16
import kdsl
from kdsl import Float32, Pointer


@kdsl.struct
class Pair:
    x: Float32
    y: Float32


@kdsl.kernel
def bad(out: Pointer[Pair]):
    p = out[0]
    out[1] = p
    Pair(1.0, 2.0).x = p.y
