# expect: E277 line 10
import kdsl
from kdsl import Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=[kdsl.Float32])
def bad(x: Pointer[D], n: Int32):
    i = kdsl.program_id(0) * 128 + thread_idx.x
    x[i] = x[i]
