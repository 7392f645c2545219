"""CUDA for the mma dialect (tensor cores): a mixin of `KernelPrinter` (backend/cuda_printer.py).

    mma.tf32            float h = dpl_tf32(x);                      (cvt.rna.tf32.f32)
    mma.sync m16n8k8    float d0 = c0, ...; asm volatile("mma.sync.aligned.m16n8k8.row.col...")
    mma.wgmma m64nNk8   dpl_wgmma_m64nNk8(acc, dpl_sw128_desc(a_addr), dpl_sw128_desc(b_addr));
                        (`overwrite`: dpl_wgmma_m64nNk8_zero, scale-d = 0)
    mma.wgmma_rs        dpl_wgmma_rs_m64nNk8(acc, a0, a1, a2, a3, dpl_sw128_desc(b_addr));
                        (`overwrite`: dpl_wgmma_rs_m64nNk8_zero)
    mma.wgmma_fence     dpl_fence_regs(acc); wgmma.fence.sync.aligned
    mma.wgmma_commit    wgmma.commit_group.sync.aligned
    mma.wgmma_wait N    wgmma.wait_group.sync.aligned N; dpl_fence_regs(acc)
    mma.fence_proxy_async   fence.proxy.async.shared::cta

`dpl_fence_regs` (an empty asm that reads and writes every accumulator register) keeps nvcc from
moving accumulator reads or writes across the asynchronous MMA: it is printed with the fence for
the accumulators of the wgmmas up to the next commit (but an array an overwriting wgmma_rs starts:
its `_zero` helper does not read it) and with the wait for those of the wgmmas since the previous
wait, where the block shows them, else for every accumulator array some wgmma of the function
updates (a fenced array is live there: fencing a dead one costs registers).

Swizzled shared buffers (`#mma.swizzle<128>`) print their accesses through `dpl_swz128`, which
XORs the 16-byte chunk bits of the f32 element index with its row mod 8; they must start
1024-byte aligned (static: `__align__(1024)`; dynamic: an offset that is a multiple of 1024 in a
pool declared `__align__(1024)` whose start is also rounded up to 1024 at run time, for which
the kernel reserves 1024 bytes more than its buffers). A module with `mma.wgmma` must be compiled for sm_90a
(`print_manifest` says so; the runtime passes it to NVRTC).
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type
from xdsl.ir import Operation

from dpl.dialects import kernel as K
from dpl.dialects import mma

WGMMA_ARCH = "sm_90a"

MMA_HELPERS = {
    "dpl_tf32": """__device__ __forceinline__ float dpl_tf32(float x) {
    unsigned int r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
}""",
    "dpl_swz128": """__device__ __forceinline__ int dpl_swz128(int i) {
    return i ^ (((i >> 5) & 7) << 2);  // f32 element i of 128-byte rows: chunk ^= row % 8
}""",
    "dpl_sw128_desc": """__device__ __forceinline__ unsigned long long dpl_sw128_desc(const void* p) {
    // wgmma shared-memory descriptor: K-major, 128-byte swizzle, 8-row groups 1024 bytes apart
    unsigned long long a = static_cast<unsigned long long>(__cvta_generic_to_shared(p));
    return ((a & 0x3FFFF) >> 4) | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62);
}""",
}


def wgmma_helper(n: int) -> str:
    """`dpl_wgmma_m64n{n}k8(float (&d)[n/2], desc_a, desc_b)`: d += A * B^T on tf32."""
    regs = ", ".join(f"%{i}" for i in range(n // 2))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(n // 2))
    return (
        f"__device__ __forceinline__ void dpl_wgmma_m64n{n}k8(float (&d)[{n // 2}], "
        "unsigned long long da, unsigned long long db) {\n"
        f'    asm volatile("wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32 "\n'
        f'                 "{{{regs}}}, %{n // 2}, %{n // 2 + 1}, 1, 1, 1;\\n"\n'
        f"                 : {outs}\n"
        '                 : "l"(da), "l"(db));\n'
        "}"
    )


def wgmma_zero_helper(n: int) -> str:
    """`dpl_wgmma_m64n{n}k8_zero(float (&d)[n/2], desc_a, desc_b)`: d = A * B^T (scale-d = 0, set
    as a predicate the way CUTLASS does; the old accumulators are not read)."""
    h = n // 2
    regs = ", ".join(f"%{i}" for i in range(h))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(h))
    return (
        f"__device__ __forceinline__ void dpl_wgmma_m64n{n}k8_zero(float (&d)[{h}], "
        "unsigned long long da, unsigned long long db) {\n"
        '    asm volatile("{\\n.reg .pred p;\\n"\n'
        f'                 "setp.ne.b32 p, %{h + 2}, 0;\\n"\n'
        f'                 "wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32 "\n'
        f'                 "{{{regs}}}, %{h}, %{h + 1}, p, 1, 1;\\n}}\\n"\n'
        f"                 : {outs}\n"
        '                 : "l"(da), "l"(db), "r"(0));\n'
        "}"
    )


def wgmma_rs_helper(n: int, zero: bool) -> str:
    """`dpl_wgmma_rs_m64n{n}k8[_zero](float (&d)[n/2], a0, a1, a2, a3, desc_b)`: d (+)= A * B^T on
    tf32, A from the four fragment registers (`_zero`: scale-d = 0, d output only)."""
    h = n // 2
    regs = ", ".join(f"%{i}" for i in range(h))
    outs = ", ".join(f'"{"=" if zero else "+"}f"(d[{i}])' for i in range(h))
    scale_d = 0 if zero else 1
    return (
        f"__device__ __forceinline__ void dpl_wgmma_rs_m64n{n}k8{'_zero' if zero else ''}(float (&d)[{h}], "
        "float a0, float a1, float a2, float a3, unsigned long long db) {\n"
        f"    const int scale_d = {scale_d};\n"
        '    asm volatile("{\\n.reg .pred p;\\n"\n'
        f'                 "setp.ne.b32 p, %{h + 5}, 0;\\n"\n'
        f'                 "wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32 "\n'
        f'                 "{{{regs}}}, {{%{h}, %{h + 1}, %{h + 2}, %{h + 3}}}, %{h + 4}, p, 1, 1;\\n}}\\n"\n'
        f"                 : {outs}\n"
        '                 : "r"(__float_as_uint(a0)), "r"(__float_as_uint(a1)), "r"(__float_as_uint(a2)), '
        '"r"(__float_as_uint(a3)), "l"(db), "r"(scale_d));\n'
        "}"
    )


def fence_regs_helper(n: int) -> str:
    return (
        f"__device__ __forceinline__ void dpl_fence_regs(float (&d)[{n}]) {{\n"
        "#pragma unroll\n"
        f"    for (int i = 0; i < {n}; ++i) asm volatile(\"\" : \"+f\"(d[i]) :: \"memory\");\n"
        "}"
    )


def helper_source(name: str) -> str | None:
    """The CUDA of an mma helper named `name` (None: not one of ours), guarded so that
    translation units printed separately can be pasted together."""
    if name in MMA_HELPERS:
        text = MMA_HELPERS[name]
    elif name.startswith("dpl_wgmma_rs_m64n"):
        zero = name.endswith("_zero")
        text = wgmma_rs_helper(int(name[len("dpl_wgmma_rs_m64n") : -len("k8_zero" if zero else "k8")]), zero)
    elif name.startswith("dpl_wgmma_m64n") and name.endswith("k8_zero"):
        text = wgmma_zero_helper(int(name[len("dpl_wgmma_m64n") : -len("k8_zero")]))
    elif name.startswith("dpl_wgmma_m64n"):
        text = wgmma_helper(int(name[len("dpl_wgmma_m64n") : -2]))
    elif name.startswith("dpl_fence_regs_"):
        text = fence_regs_helper(int(name[len("dpl_fence_regs_") :]))
    else:
        return None
    guard = "DPL_HELPER_" + name.upper()
    return f"#ifndef {guard}\n#define {guard}\n{text}\n#endif"


def needs_sm90a(ops) -> bool:
    return any(isinstance(op, mma.WgmmaOp | mma.WgmmaRsOp) for op in ops)


class MmaPrinterMixin:
    """`op_mma_*` handlers and the swizzled-access hook for `KernelPrinter`."""

    func: K.KernelFuncOp
    helpers: set[str]

    def swizzled(self, memref, flat: str) -> str | None:
        """The element index of an access to a swizzled buffer (None: not swizzled; the caller
        rejects element types other than f32)."""
        t = memref.type
        if not mma.is_swizzled(t) or not isinstance(t.element_type, Float32Type):  # type: ignore[union-attr]
            return None
        self.helpers.add("dpl_swz128")
        return f"dpl_swz128({flat})"

    def smem_alignment(self, op: K.SmemOp) -> int:
        return 1024 if mma.is_swizzled(op.result.type) else 16

    def dynamic_pool(self, align: int) -> list[str]:
        """The declaration of the dynamic shared-memory pool `dpl_dyn_smem`; with swizzled
        buffers (align 1024) its start is also rounded up at run time, so a pool the driver
        places off a 1024-byte boundary still swizzles right (the kernel reserves 1024 bytes of
        slack: materialize-mma does)."""
        if align < 1024:
            return [f"    extern __shared__ __align__({align}) unsigned char dpl_dyn_smem[];"]
        return [
            "    extern __shared__ __align__(1024) unsigned char dpl_dyn_smem_raw[];",
            "    unsigned char* dpl_dyn_smem = dpl_dyn_smem_raw + ((1024u - static_cast<unsigned int>("
            "__cvta_generic_to_shared(dpl_dyn_smem_raw) & 1023u)) & 1023u);",
        ]

    def _accumulators(self, at: Operation) -> list:
        """The wgmma accumulator arrays in scope at `at` (fuse-launches puts several kernels'
        bodies in one function, each in its own branch)."""
        scopes = set()
        block = at.parent_block()
        while block is not None:
            scopes.add(block)
            parent = block.parent_op()
            block = parent.parent_block() if parent is not None else None
        accs = []
        for op in self.func.body.walk():
            if (isinstance(op, mma.WgmmaOp | mma.WgmmaRsOp) and op.acc not in accs
                    and op.acc.owner.parent_block() in scopes):  # fmt: skip
                accs.append(op.acc)
        return accs

    def _group_accumulators(self, at: Operation) -> list | None:
        """The accumulators `at` guards, where its own block shows them: a fence's, those of the
        wgmmas after it up to the next commit; a wait's, those of the wgmmas since the previous
        wait. None where the block ends first (the wgmmas are elsewhere: all of them are fenced)."""
        forward = isinstance(at, mma.WgmmaFenceOp)
        stop = mma.WgmmaCommitOp if forward else mma.WgmmaWaitOp
        accs: list = []

        seen: list = []

        def scan(op: Operation | None) -> bool:
            """Collect from `op` on (forward or back) to a stop; False at the block's end. A
            fence skips an array whose group's first wgmma on it is an overwriting wgmma_rs
            (`_zero`: outputs only, so the old values are dead, and fencing them would keep them
            live)."""
            while op is not None and not isinstance(op, stop):
                for inner in op.walk():
                    if isinstance(inner, mma.WgmmaOp | mma.WgmmaRsOp) and inner.acc not in seen:
                        seen.append(inner.acc)
                        if not (forward and inner.overwrite and isinstance(inner, mma.WgmmaRsOp)):
                            accs.append(inner.acc)
                op = op.next_op if forward else op.prev_op
            return op is not None

        found = scan(at.next_op if forward else at.prev_op)
        loop = at.parent_op()
        if not found and not forward and isinstance(loop, K.ForOp):
            # a wait in a loop: the wgmmas since the previous wait may be the previous trip's
            # (from the body's end back) or, on the first trip, those before the loop (back to a
            # wait, or to the function's start)
            block = at.parent_block()
            assert block is not None
            found = scan(block.last_op) and (scan(loop.prev_op) or isinstance(loop.parent_op(), K.KernelFuncOp))
        return accs if found and seen else None

    def _fence_accumulators(self, at: Operation) -> None:
        accs = self._group_accumulators(at)
        for acc in accs if accs is not None else self._accumulators(at):
            n = acc.type.get_shape()[0]
            self.helpers.add(f"dpl_fence_regs_{n}")
            self.emit(f"dpl_fence_regs({self.names(acc)});")

    def op_mma_tf32(self, op: mma.Tf32Op) -> None:
        self.helpers.add("dpl_tf32")
        self.define(op, f"dpl_tf32({self.value(op.input)})")

    def op_mma_sync(self, op: mma.MmaSyncOp) -> None:
        d = [self.names(r) for r in op.res]
        self.emit("float " + ", ".join(f"{n} = {self.value(c)}" for n, c in zip(d, op.c)) + ";")
        ins = ", ".join(f'"r"(__float_as_uint({self.value(v)}))' for v in (*op.a, *op.b))
        outs = ", ".join(f'"+f"({n})' for n in d)
        self.emit(
            'asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 '
            '{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\\n"'
            f" : {outs} : {ins});"
        )

    def op_mma_wgmma(self, op: mma.WgmmaOp) -> None:
        fn = f"dpl_wgmma_m64n{op.n.data}k8" + ("_zero" if op.overwrite else "")
        self.helpers.update({fn, "dpl_sw128_desc"})
        # the descriptor takes the unswizzled address of the operand's first element
        a = f"{self.names(op.a)} + {self.flat_index(op.a, op.a_map.data, op.a_indices)}"
        b = f"{self.names(op.b)} + {self.flat_index(op.b, op.b_map.data, op.b_indices)}"
        self.emit(f"{fn}({self.names(op.acc)}, dpl_sw128_desc({a}), dpl_sw128_desc({b}));")

    def op_mma_wgmma_rs(self, op: mma.WgmmaRsOp) -> None:
        fn = f"dpl_wgmma_rs_m64n{op.n.data}k8" + ("_zero" if op.overwrite else "")
        self.helpers.update({fn, "dpl_sw128_desc"})
        a = ", ".join(self.value(v) for v in op.a)
        b = f"{self.names(op.b)} + {self.flat_index(op.b, op.b_map.data, op.b_indices)}"
        self.emit(f"{fn}({self.names(op.acc)}, {a}, dpl_sw128_desc({b}));")

    def op_mma_wgmma_fence(self, op: Operation) -> None:
        self._fence_accumulators(op)
        self.emit('asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");')

    def op_mma_wgmma_commit(self, op: Operation) -> None:
        self.emit('asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");')

    def op_mma_wgmma_wait(self, op: mma.WgmmaWaitOp) -> None:
        self.emit(f'asm volatile("wgmma.wait_group.sync.aligned {op.pending.data};\\n" ::: "memory");')
        self._fence_accumulators(op)

    def op_mma_fence_proxy_async(self, op: Operation) -> None:
        self.emit('asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory");')
