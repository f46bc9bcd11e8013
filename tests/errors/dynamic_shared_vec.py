# expect: E326 line 10
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], n: Int32):
    i = thread_idx.x
    tile = kdsl.dynamic_shared_array(Float32, 1024)
    quads = tile.vec(4)
    quads[i] = x.vec(4)[i]
