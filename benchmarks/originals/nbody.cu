// Re-implementation, for benchmarking the kdsl port tests/ports/nbody.py, of
// NVIDIA/cuda-samples, Samples/5_Domain_Specific/nbody/bodysystemcuda.cu,
// bodyBodyInteraction, computeBodyAccel and integrateBodies, float instance.
// Written for kdsl from the original's algorithm and arithmetic (rsqrtf, the
// #pragma unroll 128 tile loop); not the original's text. softeningSquared is a
// __constant__ set at run time (the sample's cudaMemcpyToSymbol; here through
// RawModule.get_global).
// Launch: integrateBodies<<<n / 256, 256, 256 * sizeof(float4)>>>(newPos, oldPos,
// vel, 0, n, dt, damping, n / 256); as in the sample, n is a multiple of 256.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__constant__ float softeningSquared;

__device__ float3 bodyBodyInteraction(float3 ai, float4 bi, float4 bj) {
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float distSqr = r.x * r.x + r.y * r.y + r.z * r.z;
    distSqr += softeningSquared;
    float invDist = rsqrtf(distSqr);
    float invDistCube = invDist * invDist * invDist;
    float s = bj.w * invDistCube;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

__device__ float3 computeBodyAccel(float4 bodyPos, float4 *positions, int numTiles,
                                   cg::thread_block cta) {
    extern __shared__ float4 sharedPos[];
    float3 acc = {0.0f, 0.0f, 0.0f};
    for (int tile = 0; tile < numTiles; tile++) {
        sharedPos[threadIdx.x] = positions[tile * blockDim.x + threadIdx.x];
        cg::sync(cta);
#pragma unroll 128
        for (unsigned int counter = 0; counter < blockDim.x; counter++)
            acc = bodyBodyInteraction(acc, bodyPos, sharedPos[counter]);
        cg::sync(cta);
    }
    return acc;
}

extern "C" __global__ void integrateBodies(float4 *__restrict__ newPos,
                                           float4 *__restrict__ oldPos, float4 *vel,
                                           unsigned int deviceOffset,
                                           unsigned int deviceNumBodies, float deltaTime,
                                           float damping, int numTiles) {
    cg::thread_block cta = cg::this_thread_block();
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= deviceNumBodies)
        return;
    float4 position = oldPos[deviceOffset + index];
    float3 accel = computeBodyAccel(position, oldPos, numTiles, cta);
    float4 velocity = vel[deviceOffset + index];
    velocity.x += accel.x * deltaTime;
    velocity.y += accel.y * deltaTime;
    velocity.z += accel.z * deltaTime;
    velocity.x *= damping;
    velocity.y *= damping;
    velocity.z *= damping;
    position.x += velocity.x * deltaTime;
    position.y += velocity.y * deltaTime;
    position.z += velocity.z * deltaTime;
    newPos[deviceOffset + index] = position;
    vel[deviceOffset + index] = velocity;
}
