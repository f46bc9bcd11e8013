# expect: E276 line 8
import kdsl
from kdsl import Int32, Pointer, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)


@kdsl.kernel(dtypes=["f8"])
def bad(x: Pointer[D], n: Int32):
    x[thread_idx.x] = x[0]
