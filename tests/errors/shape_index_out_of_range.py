# expect: E322 line 10
import kdsl
from kdsl import Array, Pointer

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(a: Array[D, 2], out: Pointer[D]):
    out[0] = D(a.shape[2])
