# expect: E224 line 10
import kdsl
from kdsl import Int32, Pointer

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    for k in kdsl.range(n, unroll=0):
        out[k] = x[k]
