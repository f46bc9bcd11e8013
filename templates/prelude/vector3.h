// kdsl prelude, 3-lane vectors (include after vector.h): Vector[T, 3] has
// CUDA's float3 layout, three lanes aligned to one lane (12 bytes for float),
// so it moves as three scalar loads or stores, never one 16-byte one.
#ifndef KDSL_VECTOR3_H
#define KDSL_VECTOR3_H

namespace kdsl {

template <typename T>
struct alignas(alignof(T)) vec<T, 3> {
    T v[3];
};

}  // namespace kdsl

#endif  // KDSL_VECTOR3_H
