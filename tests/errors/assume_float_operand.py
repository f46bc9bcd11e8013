# expect: E352 line 8
import kdsl
from kdsl import Float32, Int32, Pointer


@kdsl.kernel
def bad(x: Pointer[Float32], a: Float32, n: Int32):
    kdsl.assume(a > 0.0)
    x[0] = a
