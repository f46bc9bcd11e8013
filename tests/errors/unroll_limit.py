# expect: E271 line 8
import kdsl
from kdsl import Float32, Pointer


@kdsl.kernel
def bad(out: Pointer[Float32]):
    for k in kdsl.range_constexpr(200000):
        out[k] = Float32(1)
