// kdsl prelude, MMA part: one helper per warp-level mma.sync shape and type
// (kdsl.mma_m16n8k16 / mma_m16n8k8 / mma_m16n8k32).  Every lane of the warp
// calls it with its fragments (kdsl::vec, laid out as the PTX ISA's "Matrix
// Fragments for mma.m16n8kK" sections say; docs/tensor-cores.md has the
// tables) and gets its fragment of D = A * B + C.  A fragment's 32-bit
// registers are its lanes' bytes, two 16-bit or four 8-bit elements each.
// A helper of 16-bit or fp8 inputs is there when the file includes the CUDA
// header of its type.
#ifndef KDSL_MMA_H
#define KDSL_MMA_H

namespace kdsl {

// The 32-bit registers of a fragment (its bytes, in lane order).
template <typename T, int N>
__device__ __forceinline__ const uint32_t* mma_regs(const vec<T, N>& v)
{
    return reinterpret_cast<const uint32_t*>(&v);
}

template <typename T, int N>
__device__ __forceinline__ uint32_t* mma_regs(vec<T, N>& v)
{
    return reinterpret_cast<uint32_t*>(&v);
}

#ifdef __CUDA_FP16_TYPES_EXIST__
// D (f32) = A (f16, 16 x 16, row-major) * B (f16, col-major) + C
__device__ __forceinline__ vec<float, 4> mma_m16n8k16_f16_f16_f32(
    const vec<__half, 8> a, const vec<__half, 4> b, const vec<float, 4> c)
{
    vec<float, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d.v[0]), "=f"(d.v[1]), "=f"(d.v[2]), "=f"(d.v[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "f"(c.v[0]), "f"(c.v[1]), "f"(c.v[2]), "f"(c.v[3]));
    return d;
}
#endif

#ifdef __CUDA_BF16_TYPES_EXIST__
// D (f32) = A (bf16, 16 x 16, row-major) * B (bf16, col-major) + C
__device__ __forceinline__ vec<float, 4> mma_m16n8k16_bf16_bf16_f32(
    const vec<__nv_bfloat16, 8> a, const vec<__nv_bfloat16, 4> b, const vec<float, 4> c)
{
    vec<float, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d.v[0]), "=f"(d.v[1]), "=f"(d.v[2]), "=f"(d.v[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "f"(c.v[0]), "f"(c.v[1]), "f"(c.v[2]), "f"(c.v[3]));
    return d;
}
#endif

#ifdef __CUDA_FP16_TYPES_EXIST__
// D (f16) = A (f16, 16 x 16, row-major) * B (f16, col-major) + C
__device__ __forceinline__ vec<__half, 4> mma_m16n8k16_f16_f16_f16(
    const vec<__half, 8> a, const vec<__half, 4> b, const vec<__half, 4> c)
{
    vec<__half, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    const uint32_t* C = mma_regs(c);
    uint32_t* D = mma_regs(d);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                 "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
                 : "=r"(D[0]), "=r"(D[1])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "r"(C[0]), "r"(C[1]));
    return d;
}
#endif

#ifdef __CUDA_FP16_TYPES_EXIST__
// D (f32) = A (f16, 16 x 8, row-major) * B (f16, col-major) + C
__device__ __forceinline__ vec<float, 4> mma_m16n8k8_f16_f16_f32(
    const vec<__half, 4> a, const vec<__half, 2> b, const vec<float, 4> c)
{
    vec<float, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=f"(d.v[0]), "=f"(d.v[1]), "=f"(d.v[2]), "=f"(d.v[3])
                 : "r"(A[0]), "r"(A[1]),
                   "r"(B[0]),
                   "f"(c.v[0]), "f"(c.v[1]), "f"(c.v[2]), "f"(c.v[3]));
    return d;
}
#endif

#ifdef __CUDA_BF16_TYPES_EXIST__
// D (f32) = A (bf16, 16 x 8, row-major) * B (bf16, col-major) + C
__device__ __forceinline__ vec<float, 4> mma_m16n8k8_bf16_bf16_f32(
    const vec<__nv_bfloat16, 4> a, const vec<__nv_bfloat16, 2> b, const vec<float, 4> c)
{
    vec<float, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=f"(d.v[0]), "=f"(d.v[1]), "=f"(d.v[2]), "=f"(d.v[3])
                 : "r"(A[0]), "r"(A[1]),
                   "r"(B[0]),
                   "f"(c.v[0]), "f"(c.v[1]), "f"(c.v[2]), "f"(c.v[3]));
    return d;
}
#endif

#ifdef __CUDA_FP16_TYPES_EXIST__
// D (f16) = A (f16, 16 x 8, row-major) * B (f16, col-major) + C
__device__ __forceinline__ vec<__half, 4> mma_m16n8k8_f16_f16_f16(
    const vec<__half, 4> a, const vec<__half, 2> b, const vec<__half, 4> c)
{
    vec<__half, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    const uint32_t* C = mma_regs(c);
    uint32_t* D = mma_regs(d);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 "
                 "{%0, %1}, {%2, %3}, {%4}, {%5, %6};"
                 : "=r"(D[0]), "=r"(D[1])
                 : "r"(A[0]), "r"(A[1]),
                   "r"(B[0]),
                   "r"(C[0]), "r"(C[1]));
    return d;
}
#endif

// D (f32) = A (tf32, 16 x 8, row-major) * B (tf32, col-major) + C
__device__ __forceinline__ vec<float, 4> mma_m16n8k8_tf32_tf32_f32(
    const vec<float, 4> a, const vec<float, 2> b, const vec<float, 4> c)
{
    vec<float, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d.v[0]), "=f"(d.v[1]), "=f"(d.v[2]), "=f"(d.v[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "f"(c.v[0]), "f"(c.v[1]), "f"(c.v[2]), "f"(c.v[3]));
    return d;
}

// D (s32) = A (s8, 16 x 32, row-major) * B (s8, col-major) + C
__device__ __forceinline__ vec<int32_t, 4> mma_m16n8k32_s8_s8_s32(
    const vec<int8_t, 16> a, const vec<int8_t, 8> b, const vec<int32_t, 4> c)
{
    vec<int32_t, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    const uint32_t* C = mma_regs(c);
    uint32_t* D = mma_regs(d);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(D[0]), "=r"(D[1]), "=r"(D[2]), "=r"(D[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "r"(C[0]), "r"(C[1]), "r"(C[2]), "r"(C[3]));
    return d;
}

// D (s32) = A (s8, 16 x 32, row-major) * B (u8, col-major) + C
__device__ __forceinline__ vec<int32_t, 4> mma_m16n8k32_s8_u8_s32(
    const vec<int8_t, 16> a, const vec<uint8_t, 8> b, const vec<int32_t, 4> c)
{
    vec<int32_t, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    const uint32_t* C = mma_regs(c);
    uint32_t* D = mma_regs(d);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(D[0]), "=r"(D[1]), "=r"(D[2]), "=r"(D[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "r"(C[0]), "r"(C[1]), "r"(C[2]), "r"(C[3]));
    return d;
}

// D (s32) = A (u8, 16 x 32, row-major) * B (s8, col-major) + C
__device__ __forceinline__ vec<int32_t, 4> mma_m16n8k32_u8_s8_s32(
    const vec<uint8_t, 16> a, const vec<int8_t, 8> b, const vec<int32_t, 4> c)
{
    vec<int32_t, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    const uint32_t* C = mma_regs(c);
    uint32_t* D = mma_regs(d);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(D[0]), "=r"(D[1]), "=r"(D[2]), "=r"(D[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "r"(C[0]), "r"(C[1]), "r"(C[2]), "r"(C[3]));
    return d;
}

// D (s32) = A (u8, 16 x 32, row-major) * B (u8, col-major) + C
__device__ __forceinline__ vec<int32_t, 4> mma_m16n8k32_u8_u8_s32(
    const vec<uint8_t, 16> a, const vec<uint8_t, 8> b, const vec<int32_t, 4> c)
{
    vec<int32_t, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    const uint32_t* C = mma_regs(c);
    uint32_t* D = mma_regs(d);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(D[0]), "=r"(D[1]), "=r"(D[2]), "=r"(D[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "r"(C[0]), "r"(C[1]), "r"(C[2]), "r"(C[3]));
    return d;
}

#ifdef __CUDA_FP8_TYPES_EXIST__
// D (f32) = A (e4m3, 16 x 32, row-major) * B (e4m3, col-major) + C
__device__ __forceinline__ vec<float, 4> mma_m16n8k32_e4m3_e4m3_f32(
    const vec<__nv_fp8_e4m3, 16> a, const vec<__nv_fp8_e4m3, 8> b, const vec<float, 4> c)
{
    vec<float, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d.v[0]), "=f"(d.v[1]), "=f"(d.v[2]), "=f"(d.v[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "f"(c.v[0]), "f"(c.v[1]), "f"(c.v[2]), "f"(c.v[3]));
    return d;
}
#endif

#ifdef __CUDA_FP8_TYPES_EXIST__
// D (f32) = A (e4m3, 16 x 32, row-major) * B (e5m2, col-major) + C
__device__ __forceinline__ vec<float, 4> mma_m16n8k32_e4m3_e5m2_f32(
    const vec<__nv_fp8_e4m3, 16> a, const vec<__nv_fp8_e5m2, 8> b, const vec<float, 4> c)
{
    vec<float, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d.v[0]), "=f"(d.v[1]), "=f"(d.v[2]), "=f"(d.v[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "f"(c.v[0]), "f"(c.v[1]), "f"(c.v[2]), "f"(c.v[3]));
    return d;
}
#endif

#ifdef __CUDA_FP8_TYPES_EXIST__
// D (f32) = A (e5m2, 16 x 32, row-major) * B (e4m3, col-major) + C
__device__ __forceinline__ vec<float, 4> mma_m16n8k32_e5m2_e4m3_f32(
    const vec<__nv_fp8_e5m2, 16> a, const vec<__nv_fp8_e4m3, 8> b, const vec<float, 4> c)
{
    vec<float, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d.v[0]), "=f"(d.v[1]), "=f"(d.v[2]), "=f"(d.v[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "f"(c.v[0]), "f"(c.v[1]), "f"(c.v[2]), "f"(c.v[3]));
    return d;
}
#endif

#ifdef __CUDA_FP8_TYPES_EXIST__
// D (f32) = A (e5m2, 16 x 32, row-major) * B (e5m2, col-major) + C
__device__ __forceinline__ vec<float, 4> mma_m16n8k32_e5m2_e5m2_f32(
    const vec<__nv_fp8_e5m2, 16> a, const vec<__nv_fp8_e5m2, 8> b, const vec<float, 4> c)
{
    vec<float, 4> d;
    const uint32_t* A = mma_regs(a);
    const uint32_t* B = mma_regs(b);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d.v[0]), "=f"(d.v[1]), "=f"(d.v[2]), "=f"(d.v[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]),
                   "r"(B[0]), "r"(B[1]),
                   "f"(c.v[0]), "f"(c.v[1]), "f"(c.v[2]), "f"(c.v[3]));
    return d;
}
#endif

// ldmatrix / stmatrix (kdsl.ldmatrix, kdsl.stmatrix): `count` matrices of 8
// rows of 16 bytes (N elements of T), each row one vector in shared memory
// whose address a lane gives (lanes 8j .. 8j + 7: the rows of matrix j).
// Lane l holds, in register j, row l / 4, bytes 4 (l % 4) .. 4 (l % 4) + 3 of
// matrix j (.trans, 16-bit elements: the transpose's).
template <typename T>
__device__ __forceinline__ uint32_t shared_address(const T* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

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

// cp.async (kdsl.cp_async, cp_async_commit, cp_async_wait): BYTES from global
// to shared memory, asynchronously; with full == false the source is not read
// (src-size 0) and the destination is zero-filled.  .ca caches in L1 and L2,
// .cg (16 bytes only) in L2.
template <int BYTES, typename T>
__device__ __forceinline__ void cp_async_ca(T* dst, const T* src, bool full = true)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;"
                 :
                 : "r"(shared_address(dst)), "l"(src), "n"(BYTES), "r"(full ? BYTES : 0)
                 : "memory");
}

template <int BYTES, typename T>
__device__ __forceinline__ void cp_async_cg(T* dst, const T* src, bool full = true)
{
    static_assert(BYTES == 16, "cp.async.cg copies 16 bytes");
    asm volatile("cp.async.cg.shared.global [%0], [%1], %2, %3;"
                 :
                 : "r"(shared_address(dst)), "l"(src), "n"(BYTES), "r"(full ? BYTES : 0)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

// Wait until at most N committed groups of this thread are still copying.
template <int N>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;" : : "n"(N) : "memory");
}

}  // namespace kdsl

#endif  // KDSL_MMA_H
