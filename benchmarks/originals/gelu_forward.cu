// Re-implementation, for benchmarking the kdsl port tests/ports/gelu_forward.py, of
// karpathy/llm.c, dev/cuda/gelu_forward.cu, gelu_forward_kernel2 (floatX = bf16),
// with a Packed128 and load128cs/store128 of llm.c's dev/cuda/common.h. Written for
// kdsl from the original's algorithm (tanhf, 128-bit streaming loads); not the
// original's text.
// Launch: gelu_forward_kernel2<<<ceil_div(N, block_size * 8), block_size>>>.
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;
#define M_PI_ 3.14159265358979323846  // math.h's M_PI, a double
#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI_)

// 16 bytes of elements, loaded and stored as one int4
template <class ElementType> struct alignas(16) Packed128 {
    static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
    __device__ Packed128() = default;
    __device__ explicit Packed128(int4 bits) { memcpy(&payload, &bits, sizeof(bits)); }
    __device__ ElementType &operator[](int index) { return payload[index]; }
    __device__ int4 get_bits() const {
        int4 bits;
        memcpy(&bits, &payload, sizeof(bits));
        return bits;
    }
    ElementType payload[size];
};
typedef Packed128<floatX> x128;

template <class ElementType>
__device__ Packed128<ElementType> load128cs(const ElementType *address) {
    return Packed128<ElementType>{__ldcs(reinterpret_cast<const int4 *>(address))};
}

template <class ElementType>
__device__ void store128(ElementType *target, Packed128<ElementType> value) {
    *reinterpret_cast<int4 *>(target) = value.get_bits();
}

extern "C" __global__ void gelu_forward_kernel2(floatX *out, const floatX *inp, int N) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * x128::size;
    if (i < N) {
        x128 packed_out;
        x128 packed_inp = load128cs(inp + i);  // streaming: not kept in cache
        for (int k = 0; k < packed_inp.size; ++k) {
            float xi = (float)packed_inp[k];
            float cube = 0.044715f * xi * xi * xi;
            packed_out[k] =
                (floatX)(0.5f * xi * (1.0f + tanhf(GELU_SCALING_FACTOR * (xi + cube))));
        }
        store128(out + i, packed_out);
    }
}
