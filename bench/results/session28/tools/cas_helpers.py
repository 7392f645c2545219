"""The CUDA printer's float atomic max/min helpers before session 28 (compare-and-swap loops),
for the A/B of ab28a.py."""
CAS_HELPERS = {
    "dpl_atomic_max": """__device__ __forceinline__ void dpl_atomic_max(float* addr, float v) {
    int* a = reinterpret_cast<int*>(addr);
    int old = *a;
    while (__int_as_float(old) < v) {
        int seen = atomicCAS(a, old, __float_as_int(v));
        if (seen == old) break;
        old = seen;
    }
}
__device__ __forceinline__ void dpl_atomic_max(double* addr, double v) {
    unsigned long long* a = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *a;
    while (__longlong_as_double(old) < v) {
        unsigned long long seen = atomicCAS(a, old, __double_as_longlong(v));
        if (seen == old) break;
        old = seen;
    }
}""",
    "dpl_atomic_min": """__device__ __forceinline__ void dpl_atomic_min(float* addr, float v) {
    int* a = reinterpret_cast<int*>(addr);
    int old = *a;
    while (__int_as_float(old) > v) {
        int seen = atomicCAS(a, old, __float_as_int(v));
        if (seen == old) break;
        old = seen;
    }
}
__device__ __forceinline__ void dpl_atomic_min(double* addr, double v) {
    unsigned long long* a = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *a;
    while (__longlong_as_double(old) > v) {
        unsigned long long seen = atomicCAS(a, old, __double_as_longlong(v));
        if (seen == old) break;
        old = seen;
    }
}""",
}
