# expect: E412 line 7
import kdsl
from kdsl import Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[kdsl.Float32], n: Int32, NAME: kdsl.Constexpr[str] = "a"):
    x[thread_idx.x] = x[0]
