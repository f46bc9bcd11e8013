// Re-implementation, for benchmarking the kdsl port tests/ports/matrix_mul.py, of
// NVIDIA/cuda-samples, Samples/0_Introduction/matrixMul/matrixMul.cu, MatrixMulCUDA.
// Written for kdsl from the original's algorithm and index arithmetic; not the
// original's text. The template kernel's body is a template __device__ function
// here, instantiated by the extern "C" kernels MatrixMulCUDA_16 and MatrixMulCUDA_32
// (the sample's two block sizes).
// Launch: grid (wB / BLOCK_SIZE, hA / BLOCK_SIZE), block (BLOCK_SIZE, BLOCK_SIZE).

template <int BLOCK_SIZE>
__device__ __forceinline__ void MatrixMulBody(float *C, float *A, float *B, int wA, int wB) {
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = wA * BLOCK_SIZE * by;  // the first tile of A
    int aEnd = aBegin + wA - 1;         // the last
    int aStep = BLOCK_SIZE;
    int bBegin = BLOCK_SIZE * bx;  // the first tile of B
    int bStep = BLOCK_SIZE * wB;
    float Csub = 0;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k)
            Csub += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}

extern "C" __global__ void MatrixMulCUDA_16(float *C, float *A, float *B, int wA, int wB) {
    MatrixMulBody<16>(C, A, B, wA, wB);
}

extern "C" __global__ void MatrixMulCUDA_32(float *C, float *A, float *B, int wA, int wB) {
    MatrixMulBody<32>(C, A, B, wA, wB);
}
