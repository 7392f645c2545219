// Probe (session 19, issue 17): one warpgroup flash attention on wgmma, 3xTF32, head dim 128.
// Block: 128 threads, 64 query rows; key tiles of 64 streamed with cp.async.
// smem (floats): Qh Ql [64][128] sw128 (4 K-atoms of [64][32]), Kh Kl likewise,
//                Vh Vl = V^T [128][64] sw128 (2 K-atoms of [128][32], keys permuted within 8),
//                Vs [64][128] plain (the raw V tile in flight).
#ifndef ALAYOUT
#define ALAYOUT 0
#endif
#ifndef SCHED
#define SCHED 1
#endif
#ifndef SCHAIN
#define SCHAIN 2
#endif
#ifndef FASTEXP
#define FASTEXP 0
#endif
#if FASTEXP
__device__ __forceinline__ float ex2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
#else
#define ex2 exp2f
#endif
#define HD 128
#define BM 64
#define BN 64

__device__ __forceinline__ float tf32r(float x) {
    unsigned r; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); return __uint_as_float(r);
}
__device__ __forceinline__ unsigned long long desc(const float* p) {
    unsigned long long a = static_cast<unsigned long long>(__cvta_generic_to_shared(p));
    return ((a & 0x3FFFF) >> 4) | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62);
}
__device__ __forceinline__ void cp16(float* s, const float* g) {
    unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(s));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(a), "l"(g));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_wait0() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
__device__ __forceinline__ void proxy_fence() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void fence_regs(float (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}

// d[32] (+)= A(smem) * B(smem)^T, m64n64k8 tf32
__device__ __forceinline__ void wg_ss64(float (&d)[32], unsigned long long da, unsigned long long db, int acc) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, "
        "%32, %33, p, 1, 1;\n}\n"
        : "+f"(d[0]),"+f"(d[1]),"+f"(d[2]),"+f"(d[3]),"+f"(d[4]),"+f"(d[5]),"+f"(d[6]),"+f"(d[7]),
          "+f"(d[8]),"+f"(d[9]),"+f"(d[10]),"+f"(d[11]),"+f"(d[12]),"+f"(d[13]),"+f"(d[14]),"+f"(d[15]),
          "+f"(d[16]),"+f"(d[17]),"+f"(d[18]),"+f"(d[19]),"+f"(d[20]),"+f"(d[21]),"+f"(d[22]),"+f"(d[23]),
          "+f"(d[24]),"+f"(d[25]),"+f"(d[26]),"+f"(d[27]),"+f"(d[28]),"+f"(d[29]),"+f"(d[30]),"+f"(d[31])
        : "l"(da), "l"(db), "r"(acc));
}

#define R8(b) "%" #b "0,%" #b "1,%" #b "2,%" #b "3,%" #b "4,%" #b "5,%" #b "6,%" #b "7"
// d[64] (+)= A(registers a0..a3) * B(smem)^T, m64n128k8 tf32
__device__ __forceinline__ void wg_rs128(float (&d)[64], float a0, float a1, float a2, float a3,
                                         unsigned long long db, int acc) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "
        "{%64,%65,%66,%67}, %68, p, 1, 1;\n}\n"
        : "+f"(d[0]),"+f"(d[1]),"+f"(d[2]),"+f"(d[3]),"+f"(d[4]),"+f"(d[5]),"+f"(d[6]),"+f"(d[7]),
          "+f"(d[8]),"+f"(d[9]),"+f"(d[10]),"+f"(d[11]),"+f"(d[12]),"+f"(d[13]),"+f"(d[14]),"+f"(d[15]),
          "+f"(d[16]),"+f"(d[17]),"+f"(d[18]),"+f"(d[19]),"+f"(d[20]),"+f"(d[21]),"+f"(d[22]),"+f"(d[23]),
          "+f"(d[24]),"+f"(d[25]),"+f"(d[26]),"+f"(d[27]),"+f"(d[28]),"+f"(d[29]),"+f"(d[30]),"+f"(d[31]),
          "+f"(d[32]),"+f"(d[33]),"+f"(d[34]),"+f"(d[35]),"+f"(d[36]),"+f"(d[37]),"+f"(d[38]),"+f"(d[39]),
          "+f"(d[40]),"+f"(d[41]),"+f"(d[42]),"+f"(d[43]),"+f"(d[44]),"+f"(d[45]),"+f"(d[46]),"+f"(d[47]),
          "+f"(d[48]),"+f"(d[49]),"+f"(d[50]),"+f"(d[51]),"+f"(d[52]),"+f"(d[53]),"+f"(d[54]),"+f"(d[55]),
          "+f"(d[56]),"+f"(d[57]),"+f"(d[58]),"+f"(d[59]),"+f"(d[60]),"+f"(d[61]),"+f"(d[62]),"+f"(d[63])
        : "r"(__float_as_uint(a0)), "r"(__float_as_uint(a1)), "r"(__float_as_uint(a2)), "r"(__float_as_uint(a3)),
          "l"(db), "r"(acc));
}

// element (r, c) of a [rows][128] tile stored as 4 sw128 K-atoms of [rows][32]
__device__ __forceinline__ int swz(int r, int c, int rows) {
    return (c >> 5) * rows * 32 + r * 32 + ((((c >> 2) & 7) ^ (r & 7)) << 2) + (c & 3);
}

__device__ __forceinline__ void load_rows_swz(float* dst, const float* src, int tid) {
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        int q = tid + 128 * i, r = q >> 5, c = (q & 31) << 2;
        cp16(dst + swz(r, c, 64), src + r * HD + c);
    }
}
__device__ __forceinline__ void load_rows_plain(float* dst, const float* src, int tid) {
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        int q = tid + 128 * i;
        cp16(dst + q * 4, src + q * 4);
    }
}
// split 8192 floats in place: hi -> h, lo -> l (same layout)
__device__ __forceinline__ void split_flat(float* h, float* l, int tid) {
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        int q = (tid + 128 * i) * 4;
        float4 x = *reinterpret_cast<float4*>(h + q);
        float4 a = make_float4(tf32r(x.x), tf32r(x.y), tf32r(x.z), tf32r(x.w));
        float4 b = make_float4(tf32r(x.x - a.x), tf32r(x.y - a.y), tf32r(x.z - a.z), tf32r(x.w - a.w));
        *reinterpret_cast<float4*>(h + q) = a;
        *reinterpret_cast<float4*>(l + q) = b;
    }
}
// Vs [64 keys][128] -> Vh, Vl = V^T [128][64 positions] (2 sw128 K-atoms of [128][32]);
// within 8 keys, position p < 4 holds key 2p, position p + 4 key 2p + 1 (P's A fragment order)
__device__ __forceinline__ void transpose_v(const float* vs, float* vh, float* vl, int d) {
#pragma unroll
    for (int q4 = 0; q4 < 16; ++q4) {
        int k0 = 8 * (q4 >> 1) + (q4 & 1);
        float x0 = vs[(k0 + 0) * HD + d], x1 = vs[(k0 + 2) * HD + d];
        float x2 = vs[(k0 + 4) * HD + d], x3 = vs[(k0 + 6) * HD + d];
        float4 a = make_float4(tf32r(x0), tf32r(x1), tf32r(x2), tf32r(x3));
        float4 b = make_float4(tf32r(x0 - a.x), tf32r(x1 - a.y), tf32r(x2 - a.z), tf32r(x3 - a.w));
        int p0 = 4 * q4;
        int off = (p0 >> 5) * 128 * 32 + d * 32 + ((((p0 >> 2) & 7) ^ (d & 7)) << 2);
        *reinterpret_cast<float4*>(vh + off) = a;
        *reinterpret_cast<float4*>(vl + off) = b;
    }
}

extern "C" __global__ void __launch_bounds__(128, 1)
fwg(const float* __restrict__ Q, const float* __restrict__ K, const float* __restrict__ V,
    float* __restrict__ O, int S, int H, int HKV, float scale_log2, int causal) {
    extern __shared__ __align__(1024) unsigned char smraw[];
    float* sm = reinterpret_cast<float*>(smraw + ((1024u - static_cast<unsigned>(__cvta_generic_to_shared(smraw) & 1023u)) & 1023u));
    float *Qh = sm, *Ql = sm + 8192, *Kh = sm + 16384, *Kl = sm + 24576;
    float *Vh = sm + 32768, *Vl = sm + 40960, *Vs = sm + 49152;
    const int tid = threadIdx.x, w = tid >> 5, g = (tid >> 2) & 7, t = tid & 3;
    const int nqb = gridDim.x;
    const int qb = causal ? nqb - 1 - blockIdx.x : blockIdx.x;
    const int bh = blockIdx.y, b = bh / H, h = bh % H;
    const int kvh = b * HKV + h / (H / HKV);
    const float* Qp = Q + (static_cast<long long>(bh) * S + qb * BM) * HD;
    const float* Kp = K + static_cast<long long>(kvh) * S * HD;
    const float* Vp = V + static_cast<long long>(kvh) * S * HD;
    float* Op = O + (static_cast<long long>(bh) * S + qb * BM) * HD;
    const int nt = causal ? qb + 1 : S / BN;
    const int row0 = 16 * w + g, row1 = row0 + 8;

    load_rows_swz(Qh, Qp, tid);
    load_rows_swz(Kh, Kp, tid);
    load_rows_plain(Vs, Vp, tid);
    cp_commit(); cp_wait0(); __syncthreads();
    split_flat(Qh, Ql, tid);
    split_flat(Kh, Kl, tid);
#if SCHED == 0
    transpose_v(Vs, Vh, Vl, tid);
#endif
    proxy_fence(); __syncthreads();

    float o[64], c[64], s[32], sb[32];
#pragma unroll
    for (int i = 0; i < 64; ++i) o[i] = 0.f;
    float m0 = __int_as_float(0xff800000), m1 = __int_as_float(0xff800000), l0 = 0.f, l1 = 0.f;

    for (int j = 0; j < nt; ++j) {
#if SCHED == 0
        if (j + 1 < nt) { load_rows_plain(Vs, Vp + (j + 1) * BN * HD, tid); cp_commit(); }
#endif
        // S = Q K^T: two chains of 8 K steps, small terms first
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < 16; ++kk) {
            int off = (kk >> 2) * 2048 + (kk & 3) * 8;
            if (kk < 8 || SCHAIN == 1) {
                wg_ss64(s, desc(Ql + off), desc(Kh + off), kk != 0);
                wg_ss64(s, desc(Qh + off), desc(Kl + off), 1);
                wg_ss64(s, desc(Qh + off), desc(Kh + off), 1);
            } else {
                wg_ss64(sb, desc(Ql + off), desc(Kh + off), kk != 8);
                wg_ss64(sb, desc(Qh + off), desc(Kl + off), 1);
                wg_ss64(sb, desc(Qh + off), desc(Kh + off), 1);
            }
        }
        wg_commit();
#if SCHED == 1
        // while S runs: V_j (landed) -> V^T hi / lo
        cp_wait0(); __syncthreads();
        transpose_v(Vs, Vh, Vl, tid);
        proxy_fence();
#endif
        wg_wait0(); fence_regs(s);
        if (SCHAIN == 2) fence_regs(sb);
        __syncthreads();
        if (j + 1 < nt) { load_rows_swz(Kh, Kp + (j + 1) * BN * HD, tid); cp_commit(); }
#if SCHED == 1
        if (j + 1 < nt) { load_rows_plain(Vs, Vp + (j + 1) * BN * HD, tid); cp_commit(); }
#endif
        // online softmax (base 2)
        const bool diag = causal && j == qb;
        float mx0 = m0, mx1 = m1;
#pragma unroll
        for (int i = 0; i < 32; ++i) {
            float v = (SCHAIN == 1 ? s[i] : s[i] + sb[i]) * scale_log2;
            int col = 8 * (i >> 2) + 2 * t + (i & 1);
            int row = (i & 2) ? row1 : row0;
            if (diag && col > row) v = __int_as_float(0xff800000);
            s[i] = v;
            if (i & 2) mx1 = fmaxf(mx1, v); else mx0 = fmaxf(mx0, v);
        }
        mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffff, mx0, 1)); mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffff, mx0, 2));
        mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffff, mx1, 1)); mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffff, mx1, 2));
        const float al0 = ex2(m0 - mx0), al1 = ex2(m1 - mx1);
        m0 = mx0; m1 = mx1;
        float ps0 = 0.f, ps1 = 0.f;
        float pl[32];
#pragma unroll
        for (int i = 0; i < 32; ++i) {
            float p = ex2(s[i] - ((i & 2) ? mx1 : mx0));
            if (i & 2) ps1 += p; else ps0 += p;
            float hi = tf32r(p);
            s[i] = hi; pl[i] = tf32r(p - hi);
        }
        l0 = l0 * al0 + ps0; l1 = l1 * al1 + ps1;
        // C = P V: 8 K steps of 8 keys; the A fragment (rows g, g+8; k t, t+4) is keys 2t, 2t+1
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < 8; ++kk) {
            int off = (kk >> 2) * 4096 + (kk & 3) * 8;
#if ALAYOUT == 0
            float h0 = s[4*kk], h1 = s[4*kk+2], h2 = s[4*kk+1], h3 = s[4*kk+3];
            float q0 = pl[4*kk], q1 = pl[4*kk+2], q2 = pl[4*kk+1], q3 = pl[4*kk+3];
#else
            float h0 = s[4*kk], h1 = s[4*kk+1], h2 = s[4*kk+2], h3 = s[4*kk+3];
            float q0 = pl[4*kk], q1 = pl[4*kk+1], q2 = pl[4*kk+2], q3 = pl[4*kk+3];
#endif
            wg_rs128(c, q0, q1, q2, q3, desc(Vh + off), kk != 0);
            wg_rs128(c, h0, h1, h2, h3, desc(Vl + off), 1);
            wg_rs128(c, h0, h1, h2, h3, desc(Vh + off), 1);
        }
        wg_commit();
#if SCHED == 1
        // while P V runs: K_{j+1} -> hi / lo (V_{j+1} may still be in flight)
        if (j + 1 < nt) {
            asm volatile("cp.async.wait_group 1;\n" ::: "memory"); __syncthreads();
            split_flat(Kh, Kl, tid);
            proxy_fence();
        }
#endif
        wg_wait0(); fence_regs(c);
#pragma unroll
        for (int i = 0; i < 64; ++i) o[i] = o[i] * ((i & 2) ? al1 : al0) + c[i];
#if SCHED == 0
        if (j + 1 < nt) {
            cp_wait0(); __syncthreads();
            split_flat(Kh, Kl, tid);
            transpose_v(Vs, Vh, Vl, tid);
            proxy_fence(); __syncthreads();
        }
#else
        __syncthreads();
#endif
    }
    l0 += __shfl_xor_sync(0xffffffff, l0, 1); l0 += __shfl_xor_sync(0xffffffff, l0, 2);
    l1 += __shfl_xor_sync(0xffffffff, l1, 1); l1 += __shfl_xor_sync(0xffffffff, l1, 2);
    const float r0 = 1.f / l0, r1 = 1.f / l1;
#pragma unroll
    for (int i = 0; i < 64; i += 2) {
        int col = 8 * (i >> 2) + 2 * t;
        int row = (i & 2) ? row1 : row0;
        float r = (i & 2) ? r1 : r0;
        *reinterpret_cast<float2*>(Op + row * HD + col) = make_float2(o[i] * r, o[i + 1] * r);
    }
}
