# expect: E309 line 12
import kdsl
from kdsl import Int32, Pointer

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], out: Pointer[D], n: Int32):
    for k in range(n):
        out[k] = x[k]
    out[0] = x[k]
