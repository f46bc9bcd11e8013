# expect: E127 line 9
import kdsl
from kdsl import Float32, Int32, Pointer, thread_idx


@kdsl.kernel
def bad(x: Pointer[Float32], n: Int32):
    small = kdsl.shared_array(Float32, 1024)
    tile = kdsl.shared_array(Float32, (128, 96))
    small[thread_idx.x] = x[thread_idx.x]
    tile[0, thread_idx.x] = small[thread_idx.x]
    x[thread_idx.x] = tile[0, 0]
