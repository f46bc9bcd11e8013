# expect: E321 line 11
import kdsl
from kdsl import Array, Int32, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(a: Array[D, 2], out: Array[D, 2]):
    i = block_idx.x * 256 + thread_idx.x
    out[i, 0] = a[i, 0, 0]
