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

}  // namespace kdsl

#endif  // KDSL_MMA_H
