# expect: E926 line 15
import kdsl
from kdsl import Float32, Pointer


@kdsl.struct
class Pair:
    x: Float32
    y: Float32


@kdsl.kernel
def bad(p: Pointer[Pair], out: Pointer[Float32]):
    a = p[0]
    out[0] = a * 2.0
