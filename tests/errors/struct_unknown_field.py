# expect: E922 line 14
import kdsl
from kdsl import Float16, Float32, Int8, Pointer, thread_idx


@kdsl.struct
class BlockQ8_0:
    d: Float16
    qs: Int8[32]


@kdsl.kernel
def bad(x: Pointer[BlockQ8_0], y: Pointer[Float32]):
    y[thread_idx.x] = x[0].scale.to(Float32)
