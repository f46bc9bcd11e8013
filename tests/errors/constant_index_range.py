# expect: E342 line 12
import numpy as np

import kdsl
from kdsl import Float32, Pointer, thread_idx

TABLE = np.array([0.5, 1.5, 2.5], np.float32)


@kdsl.kernel
def bad(out: Pointer[Float32]):
    out[thread_idx.x] = TABLE[3]
