# expect: E274 line 7
import kdsl
from kdsl import Array, Float32, Pointer


@kdsl.kernel
def bad(a: Array[Float32, 0], out: Pointer[Float32]):
    out[0] = Float32(1)
