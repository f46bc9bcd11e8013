# expect: E238 line 12
import numpy as np

import kdsl
from kdsl import Float32, Pointer, thread_idx

TABLE = np.array([0.5, 1.5, 2.5], np.float32)


@kdsl.kernel
def bad(x: Pointer[Float32]):
    TABLE[thread_idx.x] = x[0]
