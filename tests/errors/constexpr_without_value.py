# expect: E417 line 7
import kdsl
from kdsl import Constexpr, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[kdsl.Float32], n: Int32, BLOCK: Constexpr[int]):
    x[thread_idx.x] = x[0]
