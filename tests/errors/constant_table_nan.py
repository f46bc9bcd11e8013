# expect: E340 line 12
import numpy as np

import kdsl
from kdsl import Float32, Pointer, thread_idx

TABLE = np.array([0.0, np.inf, 1.0], np.float32)


@kdsl.kernel
def bad(out: Pointer[Float32]):
    out[thread_idx.x] = TABLE[thread_idx.x]
