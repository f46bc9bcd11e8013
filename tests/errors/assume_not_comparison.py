# expect: E351 line 8
import kdsl
from kdsl import Int32, Pointer


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[kdsl.Float32], n: Int32, m: Int32):
    kdsl.assume(n > 0 or m > 0)
    x[0] = 1.0
