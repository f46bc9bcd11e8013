# expect: E925 line 14
import kdsl
from kdsl import Float16, Int8, Pointer


@kdsl.struct
class BlockQ8_0:
    d: Float16
    qs: Int8[32]


@kdsl.kernel
def bad(x: Pointer[BlockQ8_0], y: Pointer[Int8]):
    q = x[0].qs
    y[0] = q[0]
