# expect: E339 line 12
import numpy as np

import kdsl
from kdsl import Float32, Pointer, thread_idx

GRID = np.zeros((4, 4), np.float32)


@kdsl.kernel
def bad(out: Pointer[Float32]):
    out[thread_idx.x] = GRID[thread_idx.x]
