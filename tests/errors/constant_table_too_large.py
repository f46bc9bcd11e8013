# expect: E341 line 12
import numpy as np

import kdsl
from kdsl import Float32, Pointer, thread_idx

TABLE = np.zeros(16 * 1024 + 1, np.float32)  # 4 bytes over 64 KB


@kdsl.kernel
def bad(out: Pointer[Float32]):
    out[thread_idx.x] = TABLE[thread_idx.x]
