"""Port of NVIDIA/cuda-samples, Samples/0_Introduction/simpleAssert/
simpleAssert.cu, ``testKernel``: every thread asserts that its global index
is below N; launched on more threads than N, the threads past N fail.

Built with ``debug=True`` (the sample relies on device asserts being
compiled in).  kdsl's failed assertion ends only the failing thread and is
raised after the launch as ``kdsl.DeviceAssertionError`` (E460), where the
sample's ``assert`` traps and leaves the CUDA context unusable.
"""

import kdsl
from kdsl import Int32, block_dim, block_idx, thread_idx


@kdsl.kernel(debug=True)
def test_kernel(N: Int32):
    gtid = block_idx.x * block_dim.x + thread_idx.x
    assert gtid < N
