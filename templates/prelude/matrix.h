// kdsl prelude, matrix part: kdsl.ldmatrix / kdsl.stmatrix (uses mma.h's
// mma_regs).
#ifndef KDSL_MATRIX_H
#define KDSL_MATRIX_H

namespace kdsl {

// The 32-bit shared-memory address of p (matrix.h and cp_async.h both use it).
#ifndef KDSL_SHARED_ADDRESS
#define KDSL_SHARED_ADDRESS
template <typename T>
__device__ __forceinline__ uint32_t shared_address(const T* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
#endif

// ldmatrix / stmatrix (kdsl.ldmatrix, kdsl.stmatrix): `count` matrices of 8
// rows of 16 bytes (N elements of T), each row one vector in shared memory
// whose address a lane gives (lanes 8j .. 8j + 7: the rows of matrix j).
// Lane l holds, in register j, row l / 4, bytes 4 (l % 4) .. 4 (l % 4) + 3 of
// matrix j (.trans, 16-bit elements: the transpose's).
template <typename T, int N>
__device__ __forceinline__ vec<T, N / 4> ldmatrix_x1(const vec<T, N>* row)
{
    vec<T, N / 4> r;
    uint32_t* R = mma_regs(r);
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
                 : "=r"(R[0])
                 : "r"(shared_address(row))
                 : "memory");
    return r;
}

template <typename T, int N>
__device__ __forceinline__ vec<T, N / 4> ldmatrix_x1_trans(const vec<T, N>* row)
{
    vec<T, N / 4> r;
    uint32_t* R = mma_regs(r);
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];"
                 : "=r"(R[0])
                 : "r"(shared_address(row))
                 : "memory");
    return r;
}

template <typename T, int N>
__device__ __forceinline__ vec<T, N / 2> ldmatrix_x2(const vec<T, N>* row)
{
    vec<T, N / 2> r;
    uint32_t* R = mma_regs(r);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(R[0]), "=r"(R[1])
                 : "r"(shared_address(row))
                 : "memory");
    return r;
}

template <typename T, int N>
__device__ __forceinline__ vec<T, N / 2> ldmatrix_x2_trans(const vec<T, N>* row)
{
    vec<T, N / 2> r;
    uint32_t* R = mma_regs(r);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(R[0]), "=r"(R[1])
                 : "r"(shared_address(row))
                 : "memory");
    return r;
}

template <typename T, int N>
__device__ __forceinline__ vec<T, N> ldmatrix_x4(const vec<T, N>* row)
{
    vec<T, N> r;
    uint32_t* R = mma_regs(r);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(R[0]), "=r"(R[1]), "=r"(R[2]), "=r"(R[3])
                 : "r"(shared_address(row))
                 : "memory");
    return r;
}

template <typename T, int N>
__device__ __forceinline__ vec<T, N> ldmatrix_x4_trans(const vec<T, N>* row)
{
    vec<T, N> r;
    uint32_t* R = mma_regs(r);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(R[0]), "=r"(R[1]), "=r"(R[2]), "=r"(R[3])
                 : "r"(shared_address(row))
                 : "memory");
    return r;
}

// sm_90
template <typename T, int N>
__device__ __forceinline__ void stmatrix_x1(vec<T, N>* row, const vec<T, N / 4> v)
{
    const uint32_t* R = mma_regs(v);
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};"
                 :
                 : "r"(shared_address(row)), "r"(R[0])
                 : "memory");
}

// sm_90
template <typename T, int N>
__device__ __forceinline__ void stmatrix_x1_trans(vec<T, N>* row, const vec<T, N / 4> v)
{
    const uint32_t* R = mma_regs(v);
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};"
                 :
                 : "r"(shared_address(row)), "r"(R[0])
                 : "memory");
}

// sm_90
template <typename T, int N>
__device__ __forceinline__ void stmatrix_x2(vec<T, N>* row, const vec<T, N / 2> v)
{
    const uint32_t* R = mma_regs(v);
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};"
                 :
                 : "r"(shared_address(row)), "r"(R[0]), "r"(R[1])
                 : "memory");
}

// sm_90
template <typename T, int N>
__device__ __forceinline__ void stmatrix_x2_trans(vec<T, N>* row, const vec<T, N / 2> v)
{
    const uint32_t* R = mma_regs(v);
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};"
                 :
                 : "r"(shared_address(row)), "r"(R[0]), "r"(R[1])
                 : "memory");
}

// sm_90
template <typename T, int N>
__device__ __forceinline__ void stmatrix_x4(vec<T, N>* row, const vec<T, N> v)
{
    const uint32_t* R = mma_regs(v);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :
                 : "r"(shared_address(row)), "r"(R[0]), "r"(R[1]), "r"(R[2]), "r"(R[3])
                 : "memory");
}

// sm_90
template <typename T, int N>
__device__ __forceinline__ void stmatrix_x4_trans(vec<T, N>* row, const vec<T, N> v)
{
    const uint32_t* R = mma_regs(v);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
                 :
                 : "r"(shared_address(row)), "r"(R[0]), "r"(R[1]), "r"(R[2]), "r"(R[3])
                 : "memory");
}

}  // namespace kdsl

#endif  // KDSL_MATRIX_H
