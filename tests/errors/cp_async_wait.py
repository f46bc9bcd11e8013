# expect: E806 line 8
import kdsl
from kdsl import Int32, Pointer, Float32


@kdsl.kernel
def bad(src: Pointer[Float32], n: Int32):
    kdsl.cp_async_wait(n)
