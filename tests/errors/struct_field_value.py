# expect: E923 line 14
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.struct
class Pair:
    x: Float32
    y: Float32


@kdsl.kernel
def bad(n: Pointer[Int32], out: Pointer[Pair]):
    out[0] = Pair(n[thread_idx.x], 1.0)
