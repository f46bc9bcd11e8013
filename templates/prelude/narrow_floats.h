// kdsl prelude: the three narrow float formats that CUDA has no type for.
//
// Float8E4M3FNUZ (bias 8), Float8E4M3B11FNUZ (bias 11) and Float8E4M3 (bias 7,
// IEEE-like with inf) are stored as a byte (unsigned char, i.e. uint8_t).
// Encoding follows the policy of CUDA's __nv_fp8_e4m3 / __nv_fp8_e5m2
// constructors (__nv_cvt_double_to_fp8 with __NV_SATFINITE):
//   - round to nearest, ties to even;
//   - anything above the largest finite value, +-inf included, becomes
//     +-max finite (240, 30 and 240);
//   - NaN becomes the format's NaN: 0x80 (FNUZ formats), 0x7F (E4M3);
//   - the sign of zero is kept, except in the FNUZ formats, which have no
//     negative zero: there a negative value that rounds to zero gives 0x00.
// from_float and from_double give the same bits for the same value.
// Python's kdsl.transpile.narrow.encode/decode are the reference.

// Round |x| (not NaN) to an E4M3-shaped magnitude code (4 exponent bits with
// bias `bias`, 3 mantissa bits), saturating at max_finite.
static __device__ __forceinline__ unsigned int
kdsl_detail_e4m3_magnitude(double x, int bias, double max_finite)
{
    double ax = fmin(fabs(x), max_finite);  // saturate, +inf included
    // exponent of the binade whose spacing we round to; subnormals share the
    // spacing of the lowest binade.  ilogb(0) is very negative.
    int e = max(ilogb(ax), 1 - bias);
    // significand in units of that spacing (exact scaling), ties to even
    int n = (int)rint(ldexp(ax, 3 - e));
    // normal: ((e + bias) << 3) + (n - 8); subnormal (e == 1 - bias): n.
    // n == 16 carries into the next exponent, n == 8 into the first normal.
    return (unsigned int)(((e + bias - 1) << 3) + n);
}

// Value of an E4M3-shaped magnitude code (7 bits, no NaN/inf).
static __device__ __forceinline__ float
kdsl_detail_e4m3_value(unsigned int code, int bias)
{
    int field = (int)(code >> 3);
    int mantissa = (int)(code & 7u);
    if (field == 0) {
        return ldexpf((float)mantissa, 1 - bias - 3);
    }
    return ldexpf((float)(8 + mantissa), field - bias - 3);
}

static __device__ __forceinline__ float
kdsl_detail_apply_sign(unsigned char bits, float magnitude)
{
    return (bits & 0x80u) ? -magnitude : magnitude;
}

// ---- Float8E4M3FNUZ: bias 8, max 240, NaN 0x80, no inf, no -0 ----

static __device__ __forceinline__ unsigned char
kdsl_f8e4m3fnuz_from_double(double x)
{
    if (isnan(x)) {
        return 0x80u;
    }
    unsigned int code = kdsl_detail_e4m3_magnitude(x, 8, 240.0);
    return (unsigned char)((code != 0u && signbit(x)) ? (code | 0x80u) : code);
}

static __device__ __forceinline__ unsigned char
kdsl_f8e4m3fnuz_from_float(float x)
{
    return kdsl_f8e4m3fnuz_from_double((double)x);
}

static __device__ __forceinline__ float
kdsl_f8e4m3fnuz_to_float(unsigned char bits)
{
    if (bits == 0x80u) {
        return __int_as_float(0x7fffffff);
    }
    return kdsl_detail_apply_sign(bits, kdsl_detail_e4m3_value(bits & 0x7fu, 8));
}

// ---- Float8E4M3B11FNUZ: bias 11, max 30, NaN 0x80, no inf, no -0 ----

static __device__ __forceinline__ unsigned char
kdsl_f8e4m3b11fnuz_from_double(double x)
{
    if (isnan(x)) {
        return 0x80u;
    }
    unsigned int code = kdsl_detail_e4m3_magnitude(x, 11, 30.0);
    return (unsigned char)((code != 0u && signbit(x)) ? (code | 0x80u) : code);
}

static __device__ __forceinline__ unsigned char
kdsl_f8e4m3b11fnuz_from_float(float x)
{
    return kdsl_f8e4m3b11fnuz_from_double((double)x);
}

static __device__ __forceinline__ float
kdsl_f8e4m3b11fnuz_to_float(unsigned char bits)
{
    if (bits == 0x80u) {
        return __int_as_float(0x7fffffff);
    }
    return kdsl_detail_apply_sign(bits, kdsl_detail_e4m3_value(bits & 0x7fu, 11));
}

// ---- Float8E4M3: bias 7, max 240, inf 0x78, NaN 0x79..0x7F (makes 0x7F) ----

static __device__ __forceinline__ unsigned char
kdsl_f8e4m3_from_double(double x)
{
    if (isnan(x)) {
        return 0x7fu;
    }
    unsigned int code = kdsl_detail_e4m3_magnitude(x, 7, 240.0);
    return (unsigned char)(signbit(x) ? (code | 0x80u) : code);
}

static __device__ __forceinline__ unsigned char
kdsl_f8e4m3_from_float(float x)
{
    return kdsl_f8e4m3_from_double((double)x);
}

static __device__ __forceinline__ float
kdsl_f8e4m3_to_float(unsigned char bits)
{
    unsigned int code = bits & 0x7fu;
    if (code > 0x78u) {
        return __int_as_float(0x7fffffff);
    }
    float magnitude = code == 0x78u ? __int_as_float(0x7f800000)
                                    : kdsl_detail_e4m3_value(code, 7);
    return kdsl_detail_apply_sign(bits, magnitude);
}
