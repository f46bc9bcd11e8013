# expect: E353 line 8
import kdsl
from kdsl import Constexpr, Float32, Pointer


@kdsl.kernel
def bad(x: Pointer[Float32], BLOCK: Constexpr[int] = 0):
    kdsl.assume(BLOCK > 0)
    x[0] = 1.0
