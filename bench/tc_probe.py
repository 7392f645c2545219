"""Probe: hand-written 3xTF32 tensor-core GEMMs against cuBLAS fp32 and TF32 (issue 16).

    python3 bench/tc_probe.py [--shapes 128x3584x3584,...] [--variants wg128x256_3x,...]
                              [--json out.json] [--no-isolate]
    python3 bench/tc_probe.py --compile-only      # no GPU needed: nvcc for sm_90a, ptxas -v report

C = A @ B.T with A [M, K] and B [N, K] row-major (nn.Linear's x @ w.T: both operands K-major), fp32
in and out. The kernels (CUDA below, one source, compiled once with NVRTC for `sm_90a`):

* `wg<BM>x<BN>_<p>x`: Hopper warpgroup MMA (`wgmma.mma_async.m64nNk8.f32.tf32.tf32`, sm_90a), both
  operands from shared memory through descriptors, K-major with the 128-byte swizzle (row r of a
  32-float K slice at r*128 bytes, its 16-byte chunk c at chunk c ^ (r % 8)); one warpgroup per 64
  rows. Each K tile is loaded from global memory into registers one tile ahead, split there and
  stored as hi (and lo) halves into the other of two shared-memory stages while the tensor cores
  work on the current one (`fence.proxy.async` + barrier before the MMA reads it).
* `mma<BM>x<BN>_<p>x`: `mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32` (sm_80+), 8 warps of 64x32,
  operands staged raw by `cp.async` (3 stages, rows padded to 36 floats: conflict-free fragment
  loads) and split in registers.

`3x` is the 3xTF32 split: a_hi = tf32(a) (cvt.rna), a_lo = tf32(a - a_hi), the same for b, and
a*b ~ a_lo*b_hi + a_hi*b_lo + a_hi*b_hi, the small terms first, fp32 accumulation. `1x` is plain
TF32 (a_hi*b_hi), less accurate, for reference.

`3xp` promotes: the tensor cores round their fp32 accumulation toward zero at every MMA, so one
accumulator chain over all of K loses accuracy linearly in K (the first run: 2.5e-5 at K = 3584,
60x cuBLAS fp32; bench/results/h100-2026-11-24-tc-probe.md). The promoted kernels keep each chain
short and add it into fp32 accumulators with ordinary round-to-nearest adds: wgmma per K tile of
32 (4 steps of 8: the 8 small-term MMAs first, then the 4 hi*hi; the first MMA with scale-d = 0
on a second fragment of registers), mma.sync per K step of 8. `wg128x256_3xph` keeps 128 x 256
tiles with a half-width chain fragment (two chains per K tile; ptxas spills a little there),
`wg128x128_3xp` a full one. `--compile-only` prints each kernel's registers and spills. `-sK` rows split K over K blocks (atomicAdd into a
zeroed C; the zeroing is timed too), chosen when the tile grid alone would leave SMs idle.

Every kernel is checked against float64 (‖C − ref‖/‖ref‖, fresh random inputs, C poisoned with
NaN first) and timed like bench/harness.py (CUDA graph, CUDA events, median, L2 flushed before each
replay). Each variant runs in its own process so that a faulting kernel cannot take the others
down (`--no-isolate` runs all in one). The table gives TFLOP/s (2*M*N*K / time), the speed over
cuBLAS fp32 (TF32 off) and cuBLAS TF32, and the error next to cuBLAS fp32's own (`err/fp32` must
be <= 2 for the 3x kernels: DESIGN.md "Measuring").
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

DEFAULT_SHAPES = (
    "128x256x64,"  # smoke test: one block, two K tiles (mismatches are printed when it fails)
    "128x3584x3584,512x3584x3584,2048x3584x3584,"
    "1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192"
)
BK = 32


@dataclass(frozen=True)
class Variant:
    name: str
    family: str  # "wg" (wgmma, sm_90a) or "mma" (mma.sync, sm_80+)
    bm: int
    bn: int
    passes: int  # 3 (3xTF32) or 1 (TF32)
    promote: str = ""  # "": one accumulator chain over all of K (the first version); "p": chains
    #                    of one K tile (mma.sync: one K step) promoted into fp32 accumulators
    tn: int = 0  # wgmma "p": the N width of a chain's fragment (0: all of BN)
    spills: bool = False  # ptxas spills a few registers (measured anyway)

    @property
    def threads(self) -> int:
        return 256

    @property
    def smem_bytes(self) -> int:
        if self.family == "wg":
            halves = 2 if self.passes == 3 else 1
            return 2 * halves * (self.bm + self.bn) * BK * 4 + 1024  # 2 stages, 1 KiB alignment slack
        return 3 * (self.bm + self.bn) * 36 * 4  # 3 cp.async stages, rows padded to 36 floats

    @property
    def precision(self) -> str:
        return "3xtf32" if self.passes == 3 else "tf32"


VARIANTS = {
    v.name: v
    for v in (
        Variant("mma128x128_3x", "mma", 128, 128, 3),
        Variant("mma128x128_1x", "mma", 128, 128, 1),
        Variant("wg128x128_3x", "wg", 128, 128, 3),
        Variant("wg128x256_3x", "wg", 128, 256, 3),
        Variant("wg128x256_1x", "wg", 128, 256, 1),
        Variant("mma128x128_3xp", "mma", 128, 128, 3, "p"),
        Variant("wg128x128_3xp", "wg", 128, 128, 3, "p"),
        Variant("wg128x256_3xph", "wg", 128, 256, 3, "p", 128, spills=True),
    )
}

# ----------------------------------------------------------------------------------- the CUDA

COMMON = r"""
typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ u32 smem_u32(const void *p) { return (u32)__cvta_generic_to_shared(p); }

// round to the nearest TF32 (10-bit mantissa), ties away from zero; low 13 bits zero
__device__ __forceinline__ u32 tf32_rna(float x) {
  u32 r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

// the 3xTF32 split: x ~ hi + lo with hi = tf32(x), lo = tf32(x - hi)
__device__ __forceinline__ void split_tf32(float x, u32 &hi, u32 &lo) {
  hi = tf32_rna(x);
  lo = tf32_rna(x - __uint_as_float(hi));
}

__device__ __forceinline__ void st_shared_v4(u32 addr, u32 a, u32 b, u32 c, u32 d) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" :: "r"(addr), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}

__device__ __forceinline__ void cp_async16(u32 dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}

__device__ __forceinline__ void store_c(float *C, int N, int r, int c, float x, float y, bool atomic) {
  float *p = C + (size_t)r * N + c;
  if (atomic) {
    atomicAdd(p, x);
    atomicAdd(p + 1, y);
  } else {
    *reinterpret_cast<float2 *>(p) = make_float2(x, y);
  }
}
"""

WGMMA_COMMON = r"""
// wgmma shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row groups 1024 bytes apart
// (stride byte offset), leading byte offset unused (1); the tile must start 1024-byte aligned.
__device__ __forceinline__ u64 sw128_desc(u32 addr) {
  return (u64)((addr & 0x3FFFF) >> 4) | ((u64)1 << 16) | ((u64)(1024 >> 4) << 32) | ((u64)1 << 62);
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(N) : "memory");
}
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// keep the compiler from moving accumulator reads/writes across an asynchronous MMA
template <int R> __device__ __forceinline__ void fence_regs(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}
"""


def wgmma_instr(n: int) -> str:
    """`wgmma_m64n{n}k8(d, desc_a, desc_b)`: d += A(64x8) * B(8xn), tf32 in, f32 accumulators."""
    regs = ", ".join(f"%{i}" for i in range(n // 2))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(n // 2))
    return (
        f"__device__ __forceinline__ void wgmma_m64n{n}k8(float (&d)[{n // 2}], u64 da, u64 db) {{\n"
        f'  asm volatile("wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32 "\n'
        f'               "{{{regs}}}, %{n // 2}, %{n // 2 + 1}, 1, 1, 1;\\n"\n'
        f'               : {outs}\n'
        f'               : "l"(da), "l"(db));\n'
        "}\n"
    )


def wgmma_chain_instr(n: int) -> str:
    """`wgmma_c<AO, BO, S>(d, desc_a, desc_b)`: d = A * B^T + (S ? d : 0) on the operands AO and
    BO 16-byte units past the descriptors' (immediates added inside the asm, so one descriptor
    per stage and operand stays live, not one per MMA); scale-d is a predicate (CUTLASS's form).
    Overloaded by the fragment's size."""
    regs = ", ".join(f"%{i}" for i in range(n // 2))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(n // 2))
    h = n // 2
    return (
        "template <int AO, int BO, int S>\n"
        f"__device__ __forceinline__ void wgmma_c(float (&d)[{h}], u64 da, u64 db) {{\n"
        '  asm volatile("{\\n.reg .pred p;\\n.reg .b64 a, b;\\n"\n'
        f'               "add.s64 a, %{h}, %{h + 3};\\n"\n'
        f'               "add.s64 b, %{h + 1}, %{h + 4};\\n"\n'
        f'               "setp.ne.b32 p, %{h + 2}, 0;\\n"\n'
        f'               "wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32 "\n'
        f'               "{{{regs}}}, a, b, p, 1, 1;\\n}}\\n"\n'
        f'               : {outs}\n'
        '               : "l"(da), "l"(db), "r"(S), "n"(AO), "n"(BO));\n'
        "}\n"
    )


WG_HEAD = r"""
$SIGNATURE$
  constexpr int BK = 32, NT = 256;
  constexpr int A_BYTES = BM * BK * 4, B_BYTES = BN * BK * 4;
  constexpr int HALF_BYTES = A_BYTES + B_BYTES;            // one of hi / lo: [A | B]
  constexpr int STAGE_BYTES = (PASSES == 3 ? 2 : 1) * HALF_BYTES;
  constexpr int A_CHUNKS = BM * BK / 4 / NT, B_CHUNKS = BN * BK / 4 / NT;   // float4 per thread
  extern __shared__ unsigned char smem_raw[];
  const u32 base = (smem_u32(smem_raw) + 1023u) & ~1023u;

  const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, kb = blockIdx.z * kps;
  const int ktiles = kps / BK;
  const bool atomic = gridDim.z > 1;

  float acc[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.f;

  float4 ra[A_CHUNKS], rb[B_CHUNKS];
  // global -> registers: chunk c is row c / 8, 16-byte column c % 8 of the 32-float K slice
#define WG_LOAD(kt)                                                                          \
  {                                                                                          \
    const int k0 = kb + (kt) * BK;                                                           \
    _Pragma("unroll") for (int i = 0; i < A_CHUNKS; ++i) {                                   \
      const int c = tid + i * NT;                                                            \
      ra[i] = *reinterpret_cast<const float4 *>(A + (size_t)(m0 + (c >> 3)) * K + k0 + (c & 7) * 4); \
    }                                                                                        \
    _Pragma("unroll") for (int i = 0; i < B_CHUNKS; ++i) {                                   \
      const int c = tid + i * NT;                                                            \
      rb[i] = *reinterpret_cast<const float4 *>(B + (size_t)(n0 + (c >> 3)) * K + k0 + (c & 7) * 4); \
    }                                                                                        \
  }
  // registers -> stage s, split into hi (and lo), 128-byte swizzled: chunk (r, c) at r*128 + (c ^ r%8)*16
#define WG_STORE_ONE(v, tile, c)                                                             \
  {                                                                                          \
    const u32 off = (tile) + ((c) >> 3) * 128 + ((((c) & 7) ^ (((c) >> 3) & 7)) << 4);      \
    if (PASSES == 3) {                                                                       \
      u32 h0, h1, h2, h3, l0, l1, l2, l3;                                                    \
      split_tf32(v.x, h0, l0); split_tf32(v.y, h1, l1);                                      \
      split_tf32(v.z, h2, l2); split_tf32(v.w, h3, l3);                                      \
      st_shared_v4(off, h0, h1, h2, h3);                                                     \
      st_shared_v4(off + HALF_BYTES, l0, l1, l2, l3);                                        \
    } else {                                                                                 \
      st_shared_v4(off, tf32_rna(v.x), tf32_rna(v.y), tf32_rna(v.z), tf32_rna(v.w));         \
    }                                                                                        \
  }
#define WG_STORE(s)                                                                          \
  {                                                                                          \
    const u32 sb = base + (s) * STAGE_BYTES;                                                 \
    _Pragma("unroll") for (int i = 0; i < A_CHUNKS; ++i) WG_STORE_ONE(ra[i], sb, tid + i * NT); \
    _Pragma("unroll") for (int i = 0; i < B_CHUNKS; ++i) WG_STORE_ONE(rb[i], sb + A_BYTES, tid + i * NT); \
  }

  WG_LOAD(0);
  WG_STORE(0);
  fence_proxy_async();
  __syncthreads();
  if (ktiles > 1) WG_LOAD(1);

"""

WG_TAIL = r"""
#undef WG_LOAD
#undef WG_STORE_ONE
#undef WG_STORE

  // accumulator layout (per warp 16 rows): d[4j + 2h + e] is row g + 8h, column 8j + 2t + e
  const int row = m0 + wg * 64 + warp * 16 + (lane >> 2), col = n0 + 2 * (lane & 3);
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    store_c(C, N, row, col + 8 * j, acc[4 * j], acc[4 * j + 1], atomic);
    store_c(C, N, row + 8, col + 8 * j, acc[4 * j + 2], acc[4 * j + 3], atomic);
  }
}
"""

WG_BODY = (
    r"""
// C[m0:m0+BM, n0:n0+BN] (+)= A[m0.., kb:kb+kps] * B[n0.., kb:kb+kps]^T on warpgroup MMA.
// BM = 64 * warpgroups; every thread loads, splits and stores; each warpgroup multiplies its 64 rows.
template <int BM, int BN, int PASSES>
__device__ __forceinline__ void wg_gemm(const float *__restrict__ A, const float *__restrict__ B,
                                        float *__restrict__ C, int M, int N, int K, int kps) {"""
    + WG_HEAD.replace("$SIGNATURE$", "")
    + r"""  for (int kt = 0; kt < ktiles; ++kt) {
    const u32 sb = base + (kt & 1) * STAGE_BYTES;
    fence_regs(acc);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 8; ++kk) {
      const u32 a_hi = sb + wg * 64 * 128 + kk * 32, b_hi = sb + A_BYTES + kk * 32;
      if (PASSES == 3) {
        wgmma_m64n%(BN)sk8(acc, sw128_desc(a_hi + HALF_BYTES), sw128_desc(b_hi));
        wgmma_m64n%(BN)sk8(acc, sw128_desc(a_hi), sw128_desc(b_hi + HALF_BYTES));
      }
      wgmma_m64n%(BN)sk8(acc, sw128_desc(a_hi), sw128_desc(b_hi));
    }
    wgmma_commit();
    if (kt + 1 < ktiles) {
      wgmma_wait<1>();   // this warpgroup's MMAs of tile kt-1 are done ...
      __syncthreads();   // ... and every warpgroup's: stage (kt+1)&1 is free
      WG_STORE((kt + 1) & 1);
      if (kt + 2 < ktiles) WG_LOAD(kt + 2);
      fence_proxy_async();   // generic-proxy stores -> visible to the tensor cores
      __syncthreads();
    }
  }
  wgmma_wait<0>();
  fence_regs(acc);
"""
    + WG_TAIL
)

# 3xTF32 with promotion (the cure for the tensor cores' truncating accumulation, see the module
# doc): the MMAs of one K tile (4 steps of 8) and one TN-wide slice of the tile's N run as a
# chain on a fresh fragment t (the first MMA with scale-d = 0), the small terms lo*hi and hi*lo
# of the 4 steps first, then hi*hi; then t is added into the fp32 accumulators with ordinary
# (round-to-nearest) adds; the next stage is stored while the first chain of a tile runs, one
# barrier per tile. (Two fragments taking turns, so that the adds of one chain overlap the MMAs
# of the next, do not pay: ptxas serializes every wgmma when ordinary instructions read one
# accumulator while another wgmma is in flight, warning C7514.)
WG_CHAIN = r"""
// one chain: the 4 K steps of a K tile (32 bytes = 2 descriptor units apart), on fresh fragment t
template <int TN, int PASSES, int HALF>
__device__ __forceinline__ void wg_chain(float (&t)[TN / 2], u64 da, u64 db) {
  constexpr int L = HALF / 16;  // the lo halves, in descriptor units
  fence_regs(t);
  wgmma_fence();
  if (PASSES == 3) {  // the small terms first: lo*hi, hi*lo
    wgmma_c<L + 0, 0, 0>(t, da, db);
    wgmma_c<0, L + 0, 1>(t, da, db);
    wgmma_c<L + 2, 2, 1>(t, da, db);
    wgmma_c<2, L + 2, 1>(t, da, db);
    wgmma_c<L + 4, 4, 1>(t, da, db);
    wgmma_c<4, L + 4, 1>(t, da, db);
    wgmma_c<L + 6, 6, 1>(t, da, db);
    wgmma_c<6, L + 6, 1>(t, da, db);
  }
  wgmma_c<0, 0, PASSES == 3>(t, da, db);
  wgmma_c<2, 2, 1>(t, da, db);
  wgmma_c<4, 4, 1>(t, da, db);
  wgmma_c<6, 6, 1>(t, da, db);
  wgmma_commit();
}
"""

WG_BODY_P = (
    r"""
template <int BM, int BN, int TN, int PASSES>
__device__ __forceinline__ void wg_gemm_p(const float *__restrict__ A, const float *__restrict__ B,
                                          float *__restrict__ C, int M, int N, int K, int kps) {"""
    + WG_HEAD.replace("$SIGNATURE$", "")
    + r"""  const u32 a_off = wg * 64 * 128;
  float t[TN / 2];
  for (int kt = 0; kt < ktiles; ++kt) {
    const u32 sb = base + (kt & 1) * STAGE_BYTES;
#pragma unroll
    for (int h = 0; h < BN / TN; ++h) {
      wg_chain<TN, PASSES, HALF_BYTES>(t, sw128_desc(sb + a_off), sw128_desc(sb + A_BYTES + h * TN * 128));
      if (h == 0 && kt + 1 < ktiles) {  // stage (kt+1)&1 was read by tile kt-1: done
        WG_STORE((kt + 1) & 1);
        if (kt + 2 < ktiles) WG_LOAD(kt + 2);
        fence_proxy_async();
      }
      wgmma_wait<0>();
      fence_regs(t);
#pragma unroll
      for (int i = 0; i < TN / 2; ++i) acc[h * (TN / 2) + i] += t[i];
    }
    __syncthreads();  // every warpgroup is done with stage kt&1; stage (kt+1)&1 is published
  }
"""
    + WG_TAIL
)

MMA_BODY = r"""
__device__ __forceinline__ void mma_tf32(float (&d)[4], const u32 (&a)[4], const u32 (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// C tile 128x128 (+)= A * B^T on mma.sync m16n8k8: 8 warps of 64 x 32 (2 x 4), K tiles of 32 staged
// raw by cp.async (3 stages, 36-float rows), split into tf32 halves in registers.
template <int PASSES, bool PROMOTE>
__device__ __forceinline__ void mma_gemm(const float *__restrict__ A, const float *__restrict__ B,
                                         float *__restrict__ C, int M, int N, int K, int kps) {
  constexpr int BM = 128, BN = 128, BK = 32, NT = 256, STAGES = 3, PITCH = 36;
  constexpr int TILE = BM * PITCH;                         // floats of one operand tile (BM == BN)
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *>(smem4);
  const u32 sbase = smem_u32(smem);

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane >> 2, t = lane & 3;
  const int wm = warp >> 2, wn = warp & 3;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, kb = blockIdx.z * kps;
  const int ktiles = kps / BK;
  const bool atomic = gridDim.z > 1;

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

#define MMA_ISSUE(kt, s)                                                                     \
  {                                                                                          \
    const int k0 = kb + (kt) * BK;                                                           \
    const u32 sa = sbase + (s) * 2 * TILE * 4, sbb = sa + TILE * 4;                          \
    _Pragma("unroll") for (int i = 0; i < BM * BK / 4 / NT; ++i) {                           \
      const int c = tid + i * NT, r = c >> 3, c4 = c & 7;                                    \
      cp_async16(sa + (r * PITCH + c4 * 4) * 4, A + (size_t)(m0 + r) * K + k0 + c4 * 4);     \
      cp_async16(sbb + (r * PITCH + c4 * 4) * 4, B + (size_t)(n0 + r) * K + k0 + c4 * 4);    \
    }                                                                                        \
  }

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) MMA_ISSUE(s, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<STAGES - 2>();   // tile kt has landed
    __syncthreads();               // ... for every thread; and stage (kt-1)%STAGES is free
    {
      const int nk = kt + STAGES - 1;
      if (nk < ktiles) MMA_ISSUE(nk, nk % STAGES);
      cp_async_commit();
    }
    const float *as = smem + (kt % STAGES) * 2 * TILE, *bs = as + TILE;
#pragma unroll
    for (int kk = 0; kk < BK / 8; ++kk) {
      const int c = kk * 8 + t;
      u32 ah[4][4], al[4][4], bh[4][2], bl[4][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        const float *p = as + (wm * 64 + mi * 16 + g) * PITCH + c;
        const float x[4] = {p[0], p[8 * PITCH], p[4], p[8 * PITCH + 4]};   // a0..a3: (g,t) (g+8,t) (g,t+4) (g+8,t+4)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          if (PASSES == 3) split_tf32(x[e], ah[mi][e], al[mi][e]);
          else ah[mi][e] = tf32_rna(x[e]);
        }
      }
#pragma unroll
      for (int ni = 0; ni < 4; ++ni) {
        const float *p = bs + (wn * 32 + ni * 8 + g) * PITCH + c;          // b0: (k=t, n=g), b1: (k=t+4, n=g)
        if (PASSES == 3) {
          split_tf32(p[0], bh[ni][0], bl[ni][0]);
          split_tf32(p[4], bh[ni][1], bl[ni][1]);
        } else {
          bh[ni][0] = tf32_rna(p[0]);
          bh[ni][1] = tf32_rna(p[4]);
        }
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) {
          if (PROMOTE) {  // a fresh chain per K step of 8, added to acc rounding to nearest
            float t[4] = {0.f, 0.f, 0.f, 0.f};
            if (PASSES == 3) {
              mma_tf32(t, al[mi], bh[ni]);
              mma_tf32(t, ah[mi], bl[ni]);
            }
            mma_tf32(t, ah[mi], bh[ni]);
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[mi][ni][e] += t[e];
          } else {
            if (PASSES == 3) {
              mma_tf32(acc[mi][ni], al[mi], bh[ni]);
              mma_tf32(acc[mi][ni], ah[mi], bl[ni]);
            }
            mma_tf32(acc[mi][ni], ah[mi], bh[ni]);
          }
        }
    }
  }
  cp_async_wait<0>();
#undef MMA_ISSUE

  // accumulator layout: d[0..1] row g, d[2..3] row g+8, columns 2t, 2t+1
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      const int r = m0 + wm * 64 + mi * 16 + g, cc = n0 + wn * 32 + ni * 8 + 2 * t;
      store_c(C, N, r, cc, acc[mi][ni][0], acc[mi][ni][1], atomic);
      store_c(C, N, r + 8, cc, acc[mi][ni][2], acc[mi][ni][3], atomic);
    }
}
"""


def kernel_source(variants: list[Variant]) -> str:
    """One CUDA source with an `extern "C"` kernel per variant (named like the variant)."""
    parts = [COMMON]
    wg_ns = sorted({v.bn for v in variants if v.family == "wg" and not v.promote})
    chain_ns = sorted({v.tn or v.bn for v in variants if v.family == "wg" and v.promote})
    if wg_ns or chain_ns:
        parts.append(WGMMA_COMMON)
        parts += [wgmma_instr(n) for n in wg_ns]
        # one body per instruction width (the body names the instruction)
        for n in wg_ns:
            parts.append(WG_BODY.replace("wg_gemm", f"wg_gemm_n{n}").replace("%(BN)s", str(n)))
    if chain_ns:
        parts += [wgmma_chain_instr(n) for n in chain_ns]
        parts += [WG_CHAIN, WG_BODY_P]
    if any(v.family == "mma" for v in variants):
        parts.append(MMA_BODY)
    sig = "(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K, int kps)"
    for v in variants:
        if v.family == "wg" and v.promote:
            call = f"wg_gemm_p<{v.bm}, {v.bn}, {v.tn or v.bn}, {v.passes}>(A, B, C, M, N, K, kps);"
        elif v.family == "wg":
            call = f"wg_gemm_n{v.bn}<{v.bm}, {v.bn}, {v.passes}>(A, B, C, M, N, K, kps);"
        else:
            promote = "true" if v.promote else "false"
            call = f"mma_gemm<{v.passes}, {promote}>(A, B, C, M, N, K, kps);"
        parts.append(f'extern "C" __global__ void __launch_bounds__({v.threads}, 1) {v.name}{sig} {{\n  {call}\n}}\n')
    return "\n".join(parts)


# ----------------------------------------------------------------------------------- shapes


def parse_shapes(text: str) -> list[tuple[int, int, int]]:
    out = []
    for s in text.split(","):
        m, n, k = (int(x) for x in s.lower().split("x"))
        out.append((m, n, k))
    return out


def fits(v: Variant, m: int, n: int, k: int) -> str | None:
    """Why `v` cannot run M x N x K (these probe kernels have no edge handling), or None."""
    if m % v.bm or n % v.bn or k % BK:
        return f"needs M % {v.bm}, N % {v.bn}, K % {BK} == 0"
    return None


def split_choices(v: Variant, m: int, n: int, k: int, sms: int) -> list[int]:
    """1, plus a split-K factor when the tile grid fills under 80% of the SMs: the smallest
    divisor of the K tiles that brings the grid to at least that, with 4+ K tiles per split."""
    tiles, ktiles = (m // v.bm) * (n // v.bn), k // BK
    if tiles >= 0.8 * sms:
        return [1]
    for s in range(2, 17):
        if ktiles % s == 0 and ktiles // s >= 4 and tiles * s >= 0.8 * sms:
            return [1, s]
    return [1]


# ----------------------------------------------------------------------------------- compile only


def compile_only(variants: list[Variant]) -> int:
    """nvcc -cubin for sm_90a with ptxas -v: registers, spills and warnings per kernel."""
    nvcc = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
    if nvcc is None:
        print("tc_probe: nvcc not found", file=sys.stderr)
        return 1
    src = kernel_source(variants)
    with tempfile.TemporaryDirectory() as d:
        cu = os.path.join(d, "tc_probe.cu")
        with open(cu, "w") as f:
            f.write(src)
        cmd = [nvcc, "-cubin", "-gencode=arch=compute_90a,code=sm_90a", "--std=c++17",
               "-Xptxas", "-v", "-o", os.path.join(d, "tc_probe.cubin"), cu]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True)
        print(f"# {' '.join(cmd[:4])} ... ({time.time() - t0:.1f} s, rc {r.returncode})")
        lines = (r.stdout + r.stderr).splitlines()
        name = None
        for line in lines:
            if "Compiling entry function" in line:
                name = line.split("'")[1]
            elif "registers" in line or "spill" in line or "warning" in line.lower() or "error" in line:
                print(f"{name or '-'}: {line.strip()}")
        return r.returncode


# ----------------------------------------------------------------------------------- GPU side


def _nvcc_cubin(source: str) -> bytes:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    with tempfile.TemporaryDirectory() as d:
        cu, out = os.path.join(d, "p.cu"), os.path.join(d, "p.cubin")
        with open(cu, "w") as f:
            f.write(source)
        r = subprocess.run([nvcc, "-cubin", "-gencode=arch=compute_90a,code=sm_90a", "--std=c++17", "-o", out, cu],
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"nvcc: {r.stderr.strip()[:300]}")
        with open(out, "rb") as f:
            return f.read()


def _load(variants: list[Variant]):
    """Compile (NVRTC for sm_90a through dpl's cubin cache; nvcc if NVRTC fails, with a note on
    stderr) and load; {name: runtime.Kernel}."""
    from cuda.bindings import driver

    from dpl.backend import runtime as R

    kernels = {v.name: R.Kernel(v.name, (1, 1, 1), (v.threads, 1, 1), v.smem_bytes, 0, []) for v in variants}
    try:
        R.load_kernels(kernel_source(variants), list(kernels.values()), arch="sm_90a")
        return kernels
    except R.CudaRuntimeError as e:
        print(f"# NVRTC failed ({str(e)[:200]}); trying nvcc", file=sys.stderr, flush=True)
    cubin = _nvcc_cubin(kernel_source(variants))
    image = ctypes.create_string_buffer(cubin, len(cubin))
    err, module = driver.cuModuleLoadData(ctypes.addressof(image))
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuModuleLoadData: {err}")
    for k in kernels.values():
        err, k.function = driver.cuModuleGetFunction(module, k.name.encode())
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuModuleGetFunction({k.name}): {err}")
        attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        (err,) = driver.cuFuncSetAttribute(k.function, attr, k.smem_bytes)
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuFuncSetAttribute({k.name}): {err}")
    _load.keep = (module, image)  # the module must outlive the kernels
    return kernels


def _launch(kernel, v: Variant, a, b, c, splits: int) -> None:
    from dpl.backend import runtime as R

    m, k = a.shape
    n = b.shape[0]
    kernel.grid = (n // v.bn, m // v.bm, splits)
    if splits > 1:
        c.zero_()
    args = [a, b, c, ctypes.c_int32(m), ctypes.c_int32(n), ctypes.c_int32(k), ctypes.c_int32(k // splits)]
    R.launch_kernel(kernel, args, R.current_stream())


def _inputs(m: int, n: int, k: int):
    import torch

    g = torch.Generator(device="cuda").manual_seed(1000 * m + 10 * n + k)
    a = torch.randn(m, k, device="cuda", generator=g)
    b = torch.randn(n, k, device="cuda", generator=g) / math.sqrt(k)
    ref = a.double() @ b.double().T
    return a, b, ref


def _diagnose(out, ref) -> str:
    """Where a wrong result is wrong: the first mismatches and their rows/columns modulo 64/8."""
    import torch

    bad = ((out.double() - ref).abs() > 1e-3 * ref.abs().max()) | torch.isnan(out)
    idx = bad.nonzero()[:6].tolist()
    frac = float(bad.float().mean())
    rows = sorted({r % 64 for r, _ in bad.nonzero()[:4096].tolist()})[:16]
    cols = sorted({c % 8 for _, c in bad.nonzero()[:4096].tolist()})
    pts = "; ".join(f"({r},{c}) got {float(out[r, c]):.4g} want {float(ref[r, c]):.4g}" for r, c in idx)
    return f"{frac:.1%} wrong; rows%64 {rows}; cols%8 {cols}; {pts}"


def time_call(fn) -> float:
    from dpl.bench.harness import gpu_time

    return gpu_time(fn, [()], flush=True, target_ms=100.0)["median_ms"]


def run_variant(v: Variant, shapes, emit) -> None:
    """Check and time one variant on every shape; emit(dict) per row."""
    import torch

    from dpl.frontend.check import rel_err

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    try:
        kernel = _load([v])[v.name]
    except Exception as e:  # noqa: BLE001 - report, do not crash the table
        for m, n, k in shapes:
            emit({"variant": v.name, "shape": [m, n, k], "error": f"build: {str(e)[:300]}"})
        return
    for m, n, k in shapes:
        why = fits(v, m, n, k)
        if why:
            emit({"variant": v.name, "shape": [m, n, k], "error": why})
            continue
        a, b, ref = _inputs(m, n, k)
        c = torch.empty(m, n, device="cuda")
        for splits in split_choices(v, m, n, k, sms):
            row = {"variant": v.name, "precision": v.precision, "shape": [m, n, k], "splits": splits}
            c.fill_(float("nan"))
            _launch(kernel, v, a, b, c, splits)
            torch.cuda.synchronize()
            err = rel_err(c, ref)
            row["err"] = err
            if not err < 1e-2:
                row["diagnosis"] = _diagnose(c, ref)
            if m * n * k > 128 * 256 * 64:  # the smoke test is not timed
                ms = time_call(lambda: _launch(kernel, v, a, b, c, splits))
                row["ms"] = ms
                row["tflops"] = 2 * m * n * k / ms / 1e9
            emit(row)
        del a, b, ref, c
        torch.cuda.empty_cache()


def run_cublas(shapes, emit) -> None:
    import torch

    from dpl.frontend.check import rel_err

    for m, n, k in shapes:
        a, b, ref = _inputs(m, n, k)
        for name, tf32 in (("cublas_fp32", False), ("cublas_tf32", True)):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            out = a @ b.T
            torch.cuda.synchronize()
            row = {"variant": name, "precision": "tf32" if tf32 else "ieee", "shape": [m, n, k], "splits": 1,
                   "err": rel_err(out, ref)}
            if m * n * k > 128 * 256 * 64:
                ms = time_call(lambda: torch.matmul(a, b.T, out=out))
                row["ms"] = ms
                row["tflops"] = 2 * m * n * k / ms / 1e9
            emit(row)
        torch.backends.cuda.matmul.allow_tf32 = False
        del a, b, ref
        torch.cuda.empty_cache()


def sass_summary(variants: list[Variant]) -> str:
    """Tensor-core instructions per kernel in the SASS NVRTC made (cuobjdump -sass), e.g.
    `wg128x256_3x: 96 HGMMA`: a wgmma kernel must show HGMMA, an mma.sync one HMMA."""
    from dpl.backend import runtime as R

    tool = shutil.which("cuobjdump")
    if tool is None:
        return "# sass: cuobjdump not found"
    try:
        path = R.compile_cuda(kernel_source(variants), [v.name for v in variants], arch="sm_90a").path
        text = subprocess.run([tool, "-sass", str(path)], capture_output=True, text=True, timeout=120).stdout
    except Exception as e:  # noqa: BLE001
        return f"# sass: {str(e).splitlines()[0][:200]}"
    counts: dict[str, dict[str, int]] = {}
    name = None
    for line in text.splitlines():
        if "Function :" in line:
            name = line.split("Function :")[1].strip()
            counts[name] = {"HGMMA": 0, "HMMA": 0, "FFMA": 0}
        elif name:
            for op in counts[name]:
                if f" {op}." in line or f" {op} " in line:
                    counts[name][op] += 1
    return "# sass: " + "; ".join(f"{n}: " + ", ".join(f"{c} {op}" for op, c in ops.items()) for n, ops in counts.items())


def child(name: str, shapes) -> int:
    def emit(row):
        print("ROW " + json.dumps(row), flush=True)

    if name == "cublas":
        run_cublas(shapes, emit)
    else:
        run_variant(VARIANTS[name], shapes, emit)
    return 0


def collect(names: list[str], shapes, isolate: bool) -> list[dict]:
    rows: list[dict] = []
    for name in names:
        if not isolate:
            child_rows: list[dict] = []
            try:
                if name == "cublas":
                    run_cublas(shapes, child_rows.append)
                else:
                    run_variant(VARIANTS[name], shapes, child_rows.append)
            except Exception as e:  # noqa: BLE001
                child_rows.append({"variant": name, "shape": [0, 0, 0], "error": str(e).splitlines()[0][:300]})
            rows += child_rows
            continue
        cmd = [sys.executable, os.path.abspath(__file__), "--child", name,
               "--shapes", ",".join("x".join(map(str, s)) for s in shapes)]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=540)
        got = [json.loads(line[4:]) for line in r.stdout.splitlines() if line.startswith("ROW ")]
        done = {tuple(x["shape"]) for x in got}
        if r.returncode != 0:
            tail = [s for s in r.stderr.strip().splitlines() if s.strip()][-1:] or ["?"]
            for s in shapes:
                if tuple(s) not in done:
                    got.append({"variant": name, "shape": list(s), "error": f"rc {r.returncode}: {tail[0][:300]}"})
        print(f"# {name}: {len(got)} rows in {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
        rows += got
    return rows


def table(rows: list[dict]) -> str:
    ref = {}
    for r in rows:
        if r["variant"].startswith("cublas") and "ms" in r:
            ref[(r["variant"], tuple(r["shape"]))] = r
    lines = ["| M x N x K | kernel | precision | splits | ms | TFLOP/s | x fp32 | x tf32 | rel err | err/fp32 |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["shape"][0] * r["shape"][1] * r["shape"][2], tuple(r["shape"]))):
        shape = "x".join(map(str, r["shape"]))
        if "error" in r:
            lines.append(f"| {shape} | {r['variant']} | | | error: {r['error']} | | | | | |")
            continue
        f32 = ref.get(("cublas_fp32", tuple(r["shape"])))
        t32 = ref.get(("cublas_tf32", tuple(r["shape"])))
        ms = r.get("ms")
        xf = f"{f32['ms'] / ms:.2f}" if f32 and ms else "-"
        xt = f"{t32['ms'] / ms:.2f}" if t32 and ms else "-"
        fe = None
        for x in rows:
            if x["variant"] == "cublas_fp32" and x["shape"] == r["shape"] and "err" in x:
                fe = x["err"]
        ratio = f"{r['err'] / fe:.2f}" if fe else "-"
        lines.append(
            f"| {shape} | {r['variant']} | {r.get('precision', '')} | {r.get('splits', 1)} | "
            f"{ms:.4f} | {r['tflops']:.1f} | {xf} | {xt} | {r['err']:.1e} | {ratio} |"
            if ms else
            f"| {shape} | {r['variant']} | {r.get('precision', '')} | {r.get('splits', 1)} | - | - | - | - | "
            f"{r['err']:.1e} | {ratio} |"
        )
        if "diagnosis" in r:
            lines.append(f"|  | ^ wrong: {r['diagnosis']} | | | | | | | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default=DEFAULT_SHAPES)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--json", default=None, help="also write the rows as JSON here")
    ap.add_argument("--no-isolate", action="store_true", help="run every variant in this process")
    ap.add_argument("--compile-only", action="store_true", help="nvcc for sm_90a and ptxas -v; no GPU")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    names = [s for s in a.variants.split(",") if s]
    unknown = [s for s in names if s not in VARIANTS]
    if unknown:
        print(f"tc_probe: unknown variant {', '.join(unknown)} (choices: {', '.join(VARIANTS)})", file=sys.stderr)
        return 2
    if a.compile_only:
        return compile_only([VARIANTS[s] for s in names])
    shapes = parse_shapes(a.shapes)
    if a.child:
        return child(a.child, shapes)

    import torch

    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__} {time.strftime('%Y-%m-%d %H:%M')}; "
          "C = A @ B.T fp32, A [M,K], B [N,K]; L2 flushed; median ms", flush=True)
    print(sass_summary([VARIANTS[s] for s in names]), flush=True)
    rows = collect(["cublas", *names], shapes, isolate=not a.no_isolate)
    print(table(rows))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d"), "rows": rows}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
