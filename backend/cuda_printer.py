"""Kernel IR -> CUDA C++: a one-to-one tree walk over each `kernel.func`.

`print_cuda(module)` returns one translation unit with an
`extern "C" __global__ __launch_bounds__(N) void name(const float* __restrict__ x, ..., float* __restrict__ out)` per
`kernel.func`; `print_manifest(module)` returns the launch data the runtime needs (grid, block,
dynamic shared-memory bytes, argument order with shapes/dtypes and whether each is written).

Each op becomes one statement, named after its SSA value's name hint (`float in2 = x_smem[a2];`).
Constants are printed inline as literals. Buffer accesses are flattened row-major from the affine
index map and the memref shape: `%x[0, %a1, %f] : memref<1x32x2048xf32>` -> `x[a1 * 2048 + f]`.
Index values print as `int`, or as `long long` in a kernel marked `index_bits 64` (widen-indices;
a 32-bit kernel with a buffer or launch of 2^31 elements or more is refused). `floordiv`/`mod` in
index maps, like `arith.divui`/`remui`/`cmpi ult` on `index`, print as plain `/`, `%`, `<`:
index values are assumed non-negative.

An op with no CUDA form raises `CudaPrintError` (a ValueError) naming the op and its location.
"""

from __future__ import annotations

import math
import re

import numpy as np
from collections.abc import Sequence

from xdsl.dialects.arith import FastMathFlagsAttr
from xdsl.dialects.builtin import (
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from dpl.backend.cuda_mma import WGMMA_ARCH, MmaPrinterMixin, helper_source, needs_sm90a
from dpl.dialects import kernel as K
from dpl.dialects import mma
from dpl.dialects.loop import CombineKind

INDENT = "    "
#: Buffer parameters print `__restrict__`: no two of a kernel's buffers overlap where one is
#: written (outline-kernels refuses a buffer passed twice, fuse-launches passes each once, the
#: host gives each buffer it allocates its own memory; two inputs the caller passes as one tensor
#: are only read), so ptxas may move a load above a store to another buffer. Without
#: it, an RMSNorm over rows of 512 issued each weight load after the previous output store (H200,
#: session 31, call4-sass.txt: `LDG STG` sixteen times in turn), one L2 latency after another:
#: 1984 rows ran 5.0 us, with it 3.4 (torch.compile 3.4); 45 programs of every class 1.95 ->
#: 1.98x eager (bench/results/session31/).
RESTRICT = True
FULL_MASK = "0xffffffff"


class CudaPrintError(ValueError):
    """An op (or type) the CUDA printer cannot express; `op` says which."""

    def __init__(self, message: str, op: Operation | None = None):
        where = ""
        if op is not None and isinstance(op.location, FileLineColLoc):
            loc = op.location
            where = f"{loc.filename.data}:{loc.line.data}:{loc.column.data}: "
        super().__init__(where + message)
        self.op = op
        self.where = where.rstrip(": ")
        self.message = message


# ---------------------------------------------------------------------------------------------
# Types and literals


def c_type(t: Attribute, op: Operation | None = None, index: str = "int") -> str:
    """The C type of `t`; `index` is how `index` prints (`int`, or `long long` in a kernel with
    `index_bits 64`)."""
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float64Type):
        return "double"
    if isinstance(t, IndexType):
        return index
    if isinstance(t, IntegerType):
        width = t.width.data
        names = {1: "bool", 8: "signed char", 16: "short", 32: "int", 64: "long long"}
        if width in names:
            return names[width]
    raise CudaPrintError(f"type {t} has no CUDA form", op)


def dtype_name(t: Attribute, index_bits: int = 32) -> str:
    if isinstance(t, Float32Type):
        return "float32"
    if isinstance(t, Float64Type):
        return "float64"
    if isinstance(t, Float16Type):
        return "float16"
    if isinstance(t, IndexType):
        return f"int{index_bits}"
    if isinstance(t, IntegerType):
        return "bool" if t.width.data == 1 else f"int{t.width.data}"
    return str(t)


def _is_f64(t: Attribute) -> bool:
    return isinstance(t, Float64Type)


def float_literal(value: float, t: Attribute) -> str:
    f64 = _is_f64(t)
    if math.isnan(value):
        return "__longlong_as_double(0x7ff8000000000000LL)" if f64 else "__int_as_float(0x7fc00000)"
    if math.isinf(value):
        if f64:
            bits = "0x7ff0000000000000LL" if value > 0 else "0xfff0000000000000LL"
            return f"__longlong_as_double({bits})"
        return f"__int_as_float({'0x7f800000' if value > 0 else '0xff800000'})"
    text = repr(float(value)) if f64 else str(np.float32(value))
    if "e" not in text and "." not in text:
        text += ".0"
    if text.startswith("-"):
        text = f"({text}{'' if f64 else 'f'})"
        return text
    return text if f64 else text + "f"


def int_literal(value: int, t: Attribute) -> str:
    if isinstance(t, IntegerType) and t.width.data == 1:
        return "true" if value else "false"
    text = str(value)
    if isinstance(t, IntegerType) and t.width.data == 64:
        text += "LL"
    return f"({text})" if value < 0 else text


def identity_literal(kind: CombineKind, t: Attribute, ctype: str | None = None) -> str:
    if isinstance(t, Float32Type | Float64Type):
        value = {
            CombineKind.ADD: 0.0,
            CombineKind.MUL: 1.0,
            CombineKind.MAX: -math.inf,
            CombineKind.MIN: math.inf,
        }[kind]
        return float_literal(value, t)
    bits = 64 if (ctype or c_type(t)) == "long long" else 32
    suffix = "LL" if bits == 64 else ""
    return {
        CombineKind.ADD: "0",
        CombineKind.MUL: "1",
        CombineKind.MAX: f"(-{2 ** (bits - 1) - 1}{suffix} - 1)",
        CombineKind.MIN: f"{2 ** (bits - 1) - 1}{suffix}",
    }[kind]


# ---------------------------------------------------------------------------------------------
# Names

RESERVED = set(
    """auto bool break case char class const constexpr continue default delete do double else enum
    extern false float for goto if inline int long new nullptr register return short signed sizeof
    static struct switch template this true typedef typename union unsigned using void volatile
    while asm threadIdx blockIdx blockDim gridDim warpSize exp expf log logf sqrt sqrtf rsqrt
    rsqrtf tanh tanhf erf erff lgamma lgammaf sin sinf cos cosf pow powf fma fmaf fabs fabsf fmax fmaxf fmin fminf
    max min abs floor ceil round trunc main and or xor not bitand bitor compl and_eq or_eq
    xor_eq not_eq""".split()
)


class Namer:
    """Unique C identifiers from SSA name hints (`%x_smem` -> `x_smem`, unnamed -> `t3`)."""

    def __init__(self) -> None:
        self.names: dict[SSAValue, str] = {}
        self.used: set[str] = set()
        self.counter = 0

    def fresh(self, base: str) -> str:
        base = re.sub(r"\W", "_", base) or "t"
        if base[0].isdigit():
            base = "v" + base
        if base.startswith("__"):
            base = "v" + base
        name, n = base, 0
        while name in self.used or name in RESERVED:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        return name

    def __call__(self, value: SSAValue) -> str:
        if value not in self.names:
            if value.name_hint:
                self.names[value] = self.fresh(value.name_hint)
            else:
                while f"t{self.counter}" in self.used:
                    self.counter += 1
                self.names[value] = self.fresh(f"t{self.counter}")
        return self.names[value]


# ---------------------------------------------------------------------------------------------
# Op tables

INFIX = {
    "arith.addf": "+",
    "arith.subf": "-",
    "arith.mulf": "*",
    "arith.divf": "/",
    "arith.addi": "+",
    "arith.subi": "-",
    "arith.muli": "*",
    "arith.divsi": "/",
    "arith.remsi": "%",
    "arith.andi": "&",
    "arith.ori": "|",
    "arith.xori": "^",
    "arith.shli": "<<",
    "arith.shrsi": ">>",
}
UNSIGNED_INFIX = {"arith.divui": "/", "arith.remui": "%", "arith.shrui": ">>"}
FLOAT_CALL = {  # arith/math op -> (f32 function, f64 function)
    "arith.maximumf": ("fmaxf", "fmax"),
    "arith.maxnumf": ("fmaxf", "fmax"),
    "arith.minimumf": ("fminf", "fmin"),
    "arith.minnumf": ("fminf", "fmin"),
    "math.exp": ("expf", "exp"),
    "math.exp2": ("exp2f", "exp2"),
    "math.expm1": ("expm1f", "expm1"),
    "math.log": ("logf", "log"),
    "math.log2": ("log2f", "log2"),
    "math.log10": ("log10f", "log10"),
    "math.log1p": ("log1pf", "log1p"),
    "math.sqrt": ("sqrtf", "sqrt"),
    "math.rsqrt": ("rsqrtf", "rsqrt"),
    "math.cbrt": ("cbrtf", "cbrt"),
    "math.tanh": ("tanhf", "tanh"),
    "math.sinh": ("sinhf", "sinh"),
    "math.cosh": ("coshf", "cosh"),
    "math.erf": ("erff", "erf"),
    "math.lgamma": ("lgammaf", "lgamma"),
    "math.sin": ("sinf", "sin"),
    "math.cos": ("cosf", "cos"),
    "math.tan": ("tanf", "tan"),
    "math.asin": ("asinf", "asin"),
    "math.acos": ("acosf", "acos"),
    "math.atan": ("atanf", "atan"),
    "math.atan2": ("atan2f", "atan2"),
    "math.absf": ("fabsf", "fabs"),
    "math.powf": ("powf", "pow"),
    "math.fma": ("fmaf", "fma"),
    "math.floor": ("floorf", "floor"),
    "math.ceil": ("ceilf", "ceil"),
    "math.trunc": ("truncf", "trunc"),
    "math.round": ("roundf", "round"),
    "math.roundeven": ("rintf", "rint"),
    "math.copysign": ("copysignf", "copysign"),
    "math.asinh": ("asinhf", "asinh"),
    "math.acosh": ("acoshf", "acosh"),
    "math.atanh": ("atanhf", "atanh"),
    "arith.remf": ("fmodf", "fmod"),
}
INT_CALL = {"arith.maxsi": "max", "arith.minsi": "min", "math.absi": "abs"}
CASTS = {
    "arith.sitofp",
    "arith.uitofp",
    "arith.fptosi",
    "arith.fptoui",
    "arith.index_cast",
    "arith.index_castui",
    "arith.extf",
    "arith.truncf",
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
}
CMPI = {
    "eq": "==",
    "ne": "!=",
    "slt": "<",
    "sle": "<=",
    "sgt": ">",
    "sge": ">=",
    "ult": "<",
    "ule": "<=",
    "ugt": ">",
    "uge": ">=",
}
CMPF = {
    "false": "false",
    "oeq": "{a} == {b}",
    "ogt": "{a} > {b}",
    "oge": "{a} >= {b}",
    "olt": "{a} < {b}",
    "ole": "{a} <= {b}",
    "one": "({a} < {b} || {a} > {b})",
    "ord": "({a} == {a} && {b} == {b})",
    "ueq": "!({a} < {b} || {a} > {b})",
    "ugt": "!({a} <= {b})",
    "uge": "!({a} < {b})",
    "ult": "!({a} >= {b})",
    "ule": "!({a} > {b})",
    "une": "{a} != {b}",
    "uno": "({a} != {a} || {b} != {b})",
    "true": "true",
}
HELPERS = {
    "dpl_ex2": """__device__ __forceinline__ float dpl_ex2(float x) {
    float y;  // math.exp2 with fastmath afn: the SFU's approximation (2 ulp), subnormals flushed
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}""",
    "dpl_floordiv": """template <typename T>
__device__ __forceinline__ T dpl_floordiv(T a, T b) {
    T q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}""",
    "dpl_ceildiv": """template <typename T>
__device__ __forceinline__ T dpl_ceildiv(T a, T b) {
    T q = a / b;
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}""",
}
#: Float max/min as one native integer atomic, not a compare-and-swap loop (which retried under
#: contention: split-reduce's blocks all fold into a few outputs). IEEE order is the signed-int
#: order of non-negative bit patterns and the reverse unsigned order of negative ones (-0.0 is
#: a negative pattern), so a value with the sign bit clear takes atomicMax (signed) and one with
#: it set atomicMin (unsigned), and the other way round for min; a NaN is skipped, as the
#: in-block fmaxf / fminf skip it. H200 (2026-11-30, session 28, bench/results/session28/tools/
#: ab28a.py, the CAS loop -> this, us): amax over dims 0, 1 of 1024 x 43 x 64 14.2 -> 6.7, over
#: dim 0 of 47737 x 53 13.1 -> 6.5, softmax over dim 0 of 32768 x 64 20.3 -> 13.8; 91 sweep
#: programs that fold so 1.16x in geomean, none slower than 1.002x.
ATOMIC_HELPERS = {
    "dpl_atomic_max": """__device__ __forceinline__ void dpl_atomic_max(float* addr, float v) {
    if (isnan(v)) return;
    int bits = __float_as_int(v);
    if (bits >= 0) atomicMax(reinterpret_cast<int*>(addr), bits);
    else atomicMin(reinterpret_cast<unsigned int*>(addr), static_cast<unsigned int>(bits));
}
__device__ __forceinline__ void dpl_atomic_max(double* addr, double v) {
    if (isnan(v)) return;
    long long bits = __double_as_longlong(v);
    if (bits >= 0) atomicMax(reinterpret_cast<long long*>(addr), bits);
    else atomicMin(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(bits));
}""",
    "dpl_atomic_min": """__device__ __forceinline__ void dpl_atomic_min(float* addr, float v) {
    if (isnan(v)) return;
    int bits = __float_as_int(v);
    if (bits >= 0) atomicMin(reinterpret_cast<int*>(addr), bits);
    else atomicMax(reinterpret_cast<unsigned int*>(addr), static_cast<unsigned int>(bits));
}
__device__ __forceinline__ void dpl_atomic_min(double* addr, double v) {
    if (isnan(v)) return;
    long long bits = __double_as_longlong(v);
    if (bits >= 0) atomicMin(reinterpret_cast<long long*>(addr), bits);
    else atomicMax(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(bits));
}""",
}
HELPERS.update(ATOMIC_HELPERS)
UNSIGNED = {"int": "unsigned int", "long long": "unsigned long long", "short": "unsigned short",
            "signed char": "unsigned char", "bool": "bool"}  # fmt: skip

PREC_ADD, PREC_MUL, PREC_ATOM = 1, 2, 3


# ---------------------------------------------------------------------------------------------
# The kernel printer


class KernelPrinter(MmaPrinterMixin):
    """Prints one `kernel.func` as a CUDA `__global__` function (tensor-core ops: cuda_mma.py)."""

    def __init__(self, func: K.KernelFuncOp, helpers: set[str]):
        self.func = func
        self.helpers = helpers
        self.names = Namer()
        self.lines: list[str] = []
        self.depth = 0
        self.written = func.written_args()
        self.index_c = "long long" if func.index_bitwidth == 64 else "int"

    def ctype(self, t: Attribute, op: Operation | None = None) -> str:
        return c_type(t, op, self.index_c)

    # -- emission -------------------------------------------------------------------------------

    def emit(self, line: str) -> None:
        self.lines.append(INDENT * self.depth + line)

    def block(self, block: Block) -> None:
        self.depth += 1
        for op in block.ops:
            self.op(op)
        self.depth -= 1

    # -- values ---------------------------------------------------------------------------------

    def value(self, v: SSAValue) -> str:
        """A value as an expression: constants inline, everything else by name."""
        owner = v.owner
        if isinstance(owner, Operation) and owner.name == "arith.constant":
            attr = owner.value  # type: ignore[attr-defined]
            if isinstance(attr, FloatAttr):
                return float_literal(attr.value.data, v.type)
            if isinstance(attr, IntegerAttr):
                return int_literal(attr.value.data, v.type)
            raise CudaPrintError(f"'arith.constant' of {attr} has no CUDA form", owner)
        return self.names(v)

    def define(self, op: Operation, expr: str) -> None:
        result = op.results[0]
        self.emit(f"{self.ctype(result.type, op)} {self.names(result)} = {expr};")

    # -- index maps -----------------------------------------------------------------------------

    def affine(self, e: AffineExpr, operands: Sequence[SSAValue], num_dims: int, prec: int) -> str:
        def wrap(text: str, own: int) -> str:
            return f"({text})" if own < prec else text

        if isinstance(e, AffineConstantExpr):
            return f"({e.value})" if e.value < 0 and prec > PREC_ADD else str(e.value)
        if isinstance(e, AffineDimExpr):
            return self.value(operands[e.position])
        if isinstance(e, AffineSymExpr):
            return self.value(operands[num_dims + e.position])
        assert isinstance(e, AffineBinaryOpExpr)

        def sub(x: AffineExpr, p: int) -> str:
            return self.affine(x, operands, num_dims, p)

        kind = e.kind
        if kind == AffineBinaryOpKind.Add:
            rhs = e.rhs
            if (
                isinstance(rhs, AffineBinaryOpExpr)
                and rhs.kind == AffineBinaryOpKind.Mul
                and isinstance(rhs.rhs, AffineConstantExpr)
                and rhs.rhs.value < 0
            ):
                scaled = rhs.lhs if rhs.rhs.value == -1 else rhs.lhs * (-rhs.rhs.value)
                return wrap(f"{sub(e.lhs, PREC_ADD)} - {sub(scaled, PREC_MUL)}", PREC_ADD)
            if isinstance(rhs, AffineConstantExpr) and rhs.value < 0:
                return wrap(f"{sub(e.lhs, PREC_ADD)} - {-rhs.value}", PREC_ADD)
            return wrap(f"{sub(e.lhs, PREC_ADD)} + {sub(rhs, PREC_ADD)}", PREC_ADD)
        if kind == AffineBinaryOpKind.Mul:
            return wrap(f"{sub(e.lhs, PREC_MUL)} * {sub(e.rhs, PREC_ATOM)}", PREC_MUL)
        if kind == AffineBinaryOpKind.FloorDiv:
            return wrap(f"{sub(e.lhs, PREC_MUL)} / {sub(e.rhs, PREC_ATOM)}", PREC_MUL)
        if kind == AffineBinaryOpKind.Mod:
            return wrap(f"{sub(e.lhs, PREC_MUL)} % {sub(e.rhs, PREC_ATOM)}", PREC_MUL)
        if kind == AffineBinaryOpKind.CeilDiv:
            d = sub(e.rhs, PREC_ATOM)
            return wrap(f"({sub(e.lhs, PREC_ADD)} + {d} - 1) / {d}", PREC_MUL)
        raise CudaPrintError(f"affine expression {e} has no CUDA form")

    def flat_index(self, memref: SSAValue, amap: AffineMap, indices: Sequence[SSAValue]) -> str:
        """Row-major flat offset of an access: `a1 * 2048 + f` for `[0, %a1, %f]` of 1x32x2048."""
        return self._print_flat(_flat_pairs(memref, amap), indices, amap.num_dims)

    def _print_flat(self, pairs: list[tuple[AffineExpr, int]], indices: Sequence[SSAValue],
                    num_dims: int) -> str:  # fmt: skip
        """The sum of (expression, stride) terms over an access's indices, constants folded."""
        terms: list[str] = []
        constant = 0
        for expr, stride in pairs:
            if isinstance(expr, AffineConstantExpr):
                constant += expr.value * stride
            elif stride == 1:
                terms.append(self.affine(expr, indices, num_dims, PREC_ADD))
            else:
                terms.append(f"{self.affine(expr, indices, num_dims, PREC_MUL)} * {stride}")
        if constant or not terms:
            terms.append(str(constant))
        return " + ".join(terms).replace("+ -", "- ")

    def access(self, memref: SSAValue, amap: AffineMap, indices: Sequence[SSAValue]) -> str:
        if not mma.is_swizzled(memref.type):
            return f"{self.names(memref)}[{self.flat_index(memref, amap, indices)}]"
        # the swizzle permutes within each 8 rows of 128 bytes (256 floats): terms of the flat
        # offset that are multiples of that and constants once loops are unrolled (they use
        # only the indices of fully unrolled kernel.for loops) are added after it, offsets nvcc
        # folds into the address; the rest is swizzled
        unrolled = {d for d, v in enumerate(indices) if _unrolled_index(v)}
        pairs = _flat_pairs(memref, amap)
        inner, outer = _swizzle_split(pairs, SWIZZLE_REPEAT, unrolled, amap.num_dims)
        flat = self.swizzled(memref, self._print_flat(inner if outer else pairs, indices, amap.num_dims))
        if flat is None:
            raise CudaPrintError(f"a swizzled buffer of {memref.type} has no CUDA form")
        if outer:
            flat += " + " + self._print_flat(outer, indices, amap.num_dims)
        return f"{self.names(memref)}[{flat}]"

    def shared_address(self, var: str, memref, amap, indices) -> None:
        self.emit(
            f"unsigned int {var} = static_cast<unsigned int>("
            f"__cvta_generic_to_shared(&{self.access(memref, amap, indices)}));"
        )

    # -- the function ---------------------------------------------------------------------------

    def check_index_width(self) -> None:
        """A 32-bit kernel must not hold a buffer or launch a grid of 2^31 elements or more
        (`widen-indices` decides which kernels need 64 bits; hand-written IR may skip it)."""
        func = self.func
        if func.index_bitwidth == 64:
            return
        for n, arg in func.element_counts():
            if n > 2**31 - 1:
                what = "launch" if arg is None else f"buffer %{self.names(arg)}"
                raise CudaPrintError(
                    f"kernel @{func.sym_name.data}: {what} has {n} elements, too many for 32-bit "
                    "indices (run widen-indices, or give the kernel.func 'index_bits 64')",
                    func,
                )

    def print(self) -> str:
        func = self.func
        self.check_index_width()
        static = func.static_smem_bytes()
        if static > K.MAX_STATIC_SMEM:
            raise CudaPrintError(
                f"'kernel.func' @{func.sym_name.data} declares {static} bytes of static shared "
                f"memory, more than CUDA's {K.MAX_STATIC_SMEM} (run dynamic-smem)",
                func,
            )
        params = []
        for arg in func.args:
            name = self.names(arg)
            t = arg.type
            if isinstance(t, MemRefType):
                ctype = self.ctype(t.element_type, func)
                const = "" if arg in self.written else "const "
                params.append(f"{const}{ctype}* {'__restrict__ ' if RESTRICT else ''}{name}")
            else:
                params.append(f"{self.ctype(t, func)} {name}")
        self.lines.append('extern "C" __global__')
        self.lines.append(
            f"__launch_bounds__({func.num_threads}) void {func.sym_name.data}("
            + ", ".join(params)
            + ") {"
        )
        dynamic = [op for op in func.body.walk() if isinstance(op, K.SmemOp) and op.is_dynamic]
        if dynamic:
            align = max(self.smem_alignment(op) for op in dynamic)
            self.lines += self.dynamic_pool(align)
        self.block(func.body.block)
        self.lines.append("}")
        return "\n".join(self.lines)

    # -- ops ------------------------------------------------------------------------------------

    def op(self, op: Operation) -> None:
        name = op.name
        handler = getattr(self, "op_" + name.replace(".", "_"), None)
        if handler is not None:
            handler(op)
            return
        if name == "arith.constant":
            self.value(op.results[0])  # checks the constant is printable; used inline
            return
        if name in INFIX or name in UNSIGNED_INFIX:
            a, b = (self.value(v) for v in op.operands)
            ctype = self.ctype(op.results[0].type, op)
            if name in UNSIGNED_INFIX and not isinstance(op.results[0].type, IndexType):
                u = UNSIGNED[ctype]
                self.define(op, f"({ctype})(({u}){a} {UNSIGNED_INFIX[name]} ({u}){b})")
            else:
                self.define(op, f"{a} {INFIX.get(name) or UNSIGNED_INFIX[name]} {b}")
            return
        if name == "math.exp2" and _approximate(op) and not _is_f64(op.results[0].type):
            self.helpers.add("dpl_ex2")
            self.define(op, f"dpl_ex2({self.value(op.operands[0])})")
            return
        if name in FLOAT_CALL:
            f32, f64 = FLOAT_CALL[name]
            fn = f64 if _is_f64(op.results[0].type) else f32
            self.define(op, f"{fn}({', '.join(self.value(v) for v in op.operands)})")
            return
        if name in INT_CALL:
            self.define(op, f"{INT_CALL[name]}({', '.join(self.value(v) for v in op.operands)})")
            return
        if name in CASTS:
            t = op.results[0].type
            self.define(op, f"({self.ctype(t, op)}){self.value(op.operands[0])}")
            return
        if name in ("loop.load", "loop.store"):
            getattr(self, "op_kernel_" + name.split(".")[1])(op)
            return
        raise CudaPrintError(f"'{name}' has no CUDA lowering", op)

    # arith with special syntax

    def op_arith_negf(self, op: Operation) -> None:
        self.define(op, f"-{self.value(op.operands[0])}")

    def op_arith_select(self, op: Operation) -> None:
        c, a, b = (self.value(v) for v in op.operands)
        self.define(op, f"{c} ? {a} : {b}")

    def op_arith_cmpi(self, op: Operation) -> None:
        pred = _predicate_name(op, ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"))
        a, b = (self.value(v) for v in op.operands)
        t = op.operands[0].type
        if pred.startswith("u") and not isinstance(t, IndexType):
            u = UNSIGNED[self.ctype(t, op)]
            a, b = f"({u}){a}", f"({u}){b}"
        self.define(op, f"{a} {CMPI[pred]} {b}")

    def op_arith_cmpf(self, op: Operation) -> None:
        pred = _predicate_name(op, tuple(CMPF))
        a, b = (self.value(v) for v in op.operands)
        self.define(op, CMPF[pred].format(a=a, b=b))

    def op_arith_floordivsi(self, op: Operation) -> None:
        self.helpers.add("dpl_floordiv")
        a, b = (self.value(v) for v in op.operands)
        self.define(op, f"dpl_floordiv({a}, {b})")

    def op_arith_ceildivsi(self, op: Operation) -> None:
        self.helpers.add("dpl_ceildiv")
        a, b = (self.value(v) for v in op.operands)
        self.define(op, f"dpl_ceildiv({a}, {b})")

    def op_arith_ceildivui(self, op: Operation) -> None:
        a, b = (self.value(v) for v in op.operands)
        self.define(op, f"({a} + {b} - 1) / {b}")

    def op_arith_bitcast(self, op: Operation) -> None:
        src, dst = op.operands[0].type, op.results[0].type
        fn = {
            ("float", "int"): "__float_as_int",
            ("int", "float"): "__int_as_float",
            ("double", "long long"): "__double_as_longlong",
            ("long long", "double"): "__longlong_as_double",
        }.get((self.ctype(src, op), self.ctype(dst, op)))
        if fn is None:
            raise CudaPrintError(f"'arith.bitcast' from {src} to {dst} has no CUDA form", op)
        self.define(op, f"{fn}({self.value(op.operands[0])})")

    # indices

    def _linear_tid(self) -> str:
        bx, by, bz = self.func.block_extents
        if by == 1 and bz == 1:
            return "threadIdx.x"
        return "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))"

    def op_kernel_thread_id(self, op: K.ThreadIdOp) -> None:
        self.define(op, f"threadIdx.{op.dim.data}")

    def op_kernel_block_id(self, op: K.BlockIdOp) -> None:
        self.define(op, f"blockIdx.{op.dim.data}")

    def op_kernel_block_dim(self, op: K.BlockDimOp) -> None:
        self.define(op, f"blockDim.{op.dim.data}")

    def op_kernel_grid_dim(self, op: K.GridDimOp) -> None:
        self.define(op, f"gridDim.{op.dim.data}")

    def op_kernel_lane_id(self, op: K.LaneIdOp) -> None:
        self.define(op, f"{self._linear_tid()} & 31")

    def op_kernel_warp_id(self, op: K.WarpIdOp) -> None:
        self.define(op, f"{self._linear_tid()} >> 5")

    # control flow

    def op_kernel_for(self, op: K.ForOp) -> None:
        last = op.body.block.last_op
        if op.res:
            assert isinstance(last, K.AccumulateOp)
            for result, kind in zip(op.res, last.kinds):
                init = identity_literal(kind.data, result.type, self.ctype(result.type, op))
                self.emit(f"{self.ctype(result.type, op)} {self.names(result)} = {init};")
        if op.unroll is not None:
            self.emit("#pragma unroll" + (f" {op.unroll.data}" if op.unroll.data else ""))
        iv = self.names(op.iv)

        def bound(key: str) -> str:
            b = op.bound(key)
            return str(b) if isinstance(b, int) else self.value(b)

        step = bound("step")
        incr = f"{iv}++" if step == "1" else f"{iv} += {step}"
        self.emit(f"for ({self.index_c} {iv} = {bound('lb')}; {iv} < {bound('ub')}; {incr}) {{")
        self.block(op.body.block)
        self.emit("}")

    def op_kernel_accumulate(self, op: K.AccumulateOp) -> None:
        loop = op.parent_op()
        assert isinstance(loop, K.ForOp)
        for result, kind, value in zip(loop.res, op.kinds, op.values):
            acc, v = self.names(result), self.value(value)
            t = result.type
            is_float = isinstance(t, Float32Type | Float64Type)
            match kind.data:
                case CombineKind.ADD:
                    self.emit(f"{acc} += {v};")
                case CombineKind.MUL:
                    self.emit(f"{acc} *= {v};")
                case CombineKind.MAX:
                    fn = ("fmax" if _is_f64(t) else "fmaxf") if is_float else "max"
                    self.emit(f"{acc} = {fn}({acc}, {v});")
                case CombineKind.MIN:
                    fn = ("fmin" if _is_f64(t) else "fminf") if is_float else "min"
                    self.emit(f"{acc} = {fn}({acc}, {v});")

    def op_kernel_yield(self, op: Operation) -> None:
        pass

    def op_kernel_if(self, op: K.IfOp) -> None:
        self.emit(f"if ({self.value(op.cond)}) {{")
        self.block(op.then_region.block)
        if op.else_region.blocks:
            self.emit("} else {")
            self.block(op.else_region.block)
        self.emit("}")

    # buffers and memory

    def op_kernel_smem(self, op: K.SmemOp) -> None:
        t = op.result.type
        assert isinstance(t, MemRefType)
        ctype = self.ctype(t.element_type, op)
        name = self.names(op.result)
        align = self.smem_alignment(op)
        if op.offset is not None:
            if op.offset.data % align:
                raise CudaPrintError(
                    f"'kernel.smem' offset {op.offset.data} of a swizzled buffer is not a "
                    f"multiple of {align}",
                    op,
                )
            self.emit(
                f"{ctype}* {name} = reinterpret_cast<{ctype}*>(dpl_dyn_smem + {op.offset.data});"
            )
        else:
            self.emit(f"__shared__ __align__({align}) {ctype} {name}[{_num_elements(t)}];")

    def op_kernel_alloca(self, op: K.AllocaOp) -> None:
        t = op.result.type
        assert isinstance(t, MemRefType)
        self.emit(f"{self.ctype(t.element_type, op)} {self.names(op.result)}[{_num_elements(t)}];")

    def op_kernel_load(self, op: Operation) -> None:
        if K.is_float4(op.results[0].type):
            return self.vector_load(op)
        src = self.access(op.memref, op.map.data, op.indices)  # type: ignore[attr-defined]
        mask = getattr(op, "mask", None)
        if mask is None:
            return self.define(op, src)
        # a predicated load: `v = inside ? x[i] : 0` would wait for the load at the select
        t = op.results[0].type
        self.define(op, "0" if isinstance(t, IntegerType | IndexType) else float_literal(0.0, t))
        self.emit(f"if ({self.value(mask)}) {self.names(op.results[0])} = {src};")

    def op_kernel_store(self, op: Operation) -> None:
        if K.is_float4(op.value.type):  # type: ignore[attr-defined]
            return self.vector_store(op)
        target = self.access(op.memref, op.map.data, op.indices)  # type: ignore[attr-defined]
        self.emit(f"{target} = {self.value(op.value)};")  # type: ignore[attr-defined]

    def op_kernel_atomic(self, op: Operation) -> None:
        """`atomicAdd(&out[i], v);` (max/min: an integer-atomic helper for floats, atomicMax/Min
        else). CUDA adds 64-bit integers only as unsigned long long: a signed one is added as
        its two's-complement bits, which wrap to the same sum."""
        target = self.access(op.memref, op.map.data, op.indices)  # type: ignore[attr-defined]
        v = self.value(op.value)  # type: ignore[attr-defined]
        kind = op.kind.data  # type: ignore[attr-defined]
        t = op.value.type  # type: ignore[attr-defined]
        is_float = isinstance(t, Float32Type | Float64Type)
        if kind == CombineKind.ADD and isinstance(t, IntegerType) and t.width.data == 64:
            self.emit(f"atomicAdd(reinterpret_cast<unsigned long long*>(&{target}), "
                      f"static_cast<unsigned long long>({v}));")  # fmt: skip
            return
        if kind == CombineKind.ADD:
            fn = "atomicAdd"
        elif is_float:
            fn = "dpl_atomic_max" if kind == CombineKind.MAX else "dpl_atomic_min"
            self.helpers.add(fn)
        else:
            fn = "atomicMax" if kind == CombineKind.MAX else "atomicMin"
        self.emit(f"{fn}(&{target}, {v});")

    def op_kernel_cp_async(self, op: K.CpAsyncOp) -> None:
        cache = "cg" if op.bytes.data == 16 else "ca"
        self.emit("{")
        self.depth += 1
        self.shared_address("dst_addr", op.dst, op.dst_map.data, op.dst_indices)
        src = self.access(op.src, op.src_map.data, op.src_indices)
        self.emit(
            f'asm volatile("cp.async.{cache}.shared.global [%0], [%1], {op.bytes.data};\\n"'
            f' :: "r"(dst_addr), "l"(&{src}) : "memory");'
        )
        self.depth -= 1
        self.emit("}")

    def op_kernel_cp_async_commit(self, op: Operation) -> None:
        self.emit('asm volatile("cp.async.commit_group;\\n" ::: "memory");')

    def op_kernel_cp_async_wait(self, op: K.CpAsyncWaitOp) -> None:
        self.emit(f'asm volatile("cp.async.wait_group {op.pending.data};\\n" ::: "memory");')

    def op_kernel_barrier(self, op: Operation) -> None:
        self.emit("__syncthreads();")

    def _shuffle(self, op: K.ShuffleXorOp | K.ShuffleDownOp, fn: str) -> None:
        width = "" if op.width.data == 32 else f", {op.width.data}"
        v = self.value(op.value)
        self.define(op, f"{fn}({FULL_MASK}, {v}, {op.offset.data}{width})")

    def op_kernel_shuffle_xor(self, op: K.ShuffleXorOp) -> None:
        self._shuffle(op, "__shfl_xor_sync")

    def op_kernel_shuffle_down(self, op: K.ShuffleDownOp) -> None:
        self._shuffle(op, "__shfl_down_sync")

    # sm_90 bulk copies and mbarriers

    def _bar_addr(self, op: K.TmaLoadOp | K._MbarrierOp) -> None:
        self.shared_address("bar_addr", op.barrier, op.barrier_map.data, op.barrier_indices)

    def op_kernel_tma_load(self, op: K.TmaLoadOp) -> None:
        self.emit("{")
        self.depth += 1
        self.shared_address("dst_addr", op.dst, op.dst_map.data, op.dst_indices)
        self._bar_addr(op)
        src = self.access(op.src, op.src_map.data, op.src_indices)
        self.emit(
            'asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes'
            ' [%0], [%1], %2, [%3];\\n"'
            f' :: "r"(dst_addr), "l"(&{src}), "r"({op.bytes.data}), "r"(bar_addr) : "memory");'
        )
        self.depth -= 1
        self.emit("}")

    def op_kernel_mbarrier_init(self, op: K.MbarrierInitOp) -> None:
        self.emit("{")
        self.depth += 1
        self._bar_addr(op)
        self.emit(
            'asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\\n"'
            f' :: "r"(bar_addr), "r"({op.count.data}) : "memory");'
        )
        self.emit('asm volatile("fence.mbarrier_init.release.cluster;\\n" ::: "memory");')
        self.depth -= 1
        self.emit("}")

    def op_kernel_mbarrier_arrive_expect_tx(self, op: K.MbarrierArriveExpectTxOp) -> None:
        self.emit("{")
        self.depth += 1
        self._bar_addr(op)
        self.emit(
            'asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\\n"'
            f' :: "r"(bar_addr), "r"({op.bytes.data}) : "memory");'
        )
        self.depth -= 1
        self.emit("}")

    def op_kernel_mbarrier_wait(self, op: K.MbarrierWaitOp) -> None:
        self.emit("{")
        self.depth += 1
        self._bar_addr(op)
        self.emit("unsigned int done = 0;")
        self.emit("while (!done) {")
        self.depth += 1
        self.emit(
            'asm volatile("{\\n.reg .pred p;\\n'
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\\n"
            'selp.u32 %0, 1, 0, p;\\n}\\n"'
            f' : "=r"(done) : "r"(bar_addr), "r"({self.value(op.phase)}) : "memory");'
        )
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    # float4 vector accesses (`kernel.load/store ... vector 4`, `kernel.extract`, `kernel.pack`)

    def vector_load(self, op: Operation) -> None:
        src = self.access(op.memref, op.map.data, op.indices)  # type: ignore[attr-defined]
        name = self.names(op.results[0])
        mask = getattr(op, "mask", None)
        if mask is None:
            return self.emit(f"float4 {name} = *reinterpret_cast<const float4*>(&{src});")
        self.emit(f"float4 {name} = make_float4(0.0f, 0.0f, 0.0f, 0.0f);")
        self.emit(f"if ({self.value(mask)}) {name} = *reinterpret_cast<const float4*>(&{src});")

    def vector_store(self, op: Operation) -> None:
        dst = self.access(op.memref, op.map.data, op.indices)  # type: ignore[attr-defined]
        self.emit(f"*reinterpret_cast<float4*>(&{dst}) = {self.value(op.value)};")  # type: ignore[attr-defined]

    def op_kernel_extract(self, op: K.ExtractOp) -> None:
        self.define(op, f"{self.value(op.vector)}.{'xyzw'[op.lane.data]}")

    def op_kernel_pack(self, op: K.PackOp) -> None:
        lanes = ", ".join(self.value(v) for v in op.lanes)
        self.emit(f"float4 {self.names(op.result)} = make_float4({lanes});")


def _predicate_name(op: Operation, names: Sequence[str]) -> str:
    from xdsl.dialects.arith import CMPF_COMPARISON_OPERATIONS, CMPI_COMPARISON_OPERATIONS

    table = CMPF_COMPARISON_OPERATIONS if op.name == "arith.cmpf" else CMPI_COMPARISON_OPERATIONS
    pred = table[op.predicate.value.data]  # type: ignore[attr-defined]
    assert pred in names
    return pred


def _approximate(op: Operation) -> bool:
    """Whether a math op's fastmath flags allow an approximate function (`afn`)."""
    flags = op.properties.get("fastmath") or op.attributes.get("fastmath")
    return isinstance(flags, FastMathFlagsAttr) and any(getattr(f, "value", f) == "afn" for f in flags.data)


SWIZZLE_REPEAT = 256
"""Floats after which the 128-byte swizzle repeats (8 rows of 32): swz(x + 256 k) = swz(x) + 256 k."""


def _flat_pairs(memref: SSAValue, amap: AffineMap) -> list[tuple[AffineExpr, int]]:
    """The (expression, stride) terms of an access's row-major flat offset, adjacent
    [e floordiv k, e mod k] dims folded into e."""
    t = memref.type
    assert isinstance(t, MemRefType)
    shape = t.get_shape()
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    pairs = list(zip(amap.results, strides))
    for i in range(len(pairs) - 1):  # [e floordiv k, e mod k] of dims (.., k): just e
        whole = _split_pair(pairs[i][0], pairs[i + 1][0], shape[i + 1])
        if whole is not None:
            pairs[i], pairs[i + 1] = (AffineConstantExpr(0), 0), (whole, strides[i + 1])
    return pairs


def _addends(e: AffineExpr) -> list[tuple[AffineExpr, int]]:
    """`e` as a sum of (term, coefficient), products by constants distributed over sums."""
    if isinstance(e, AffineConstantExpr):
        return [(AffineConstantExpr(1), e.value)]
    if isinstance(e, AffineBinaryOpExpr):
        if e.kind == AffineBinaryOpKind.Add:
            return _addends(e.lhs) + _addends(e.rhs)
        if e.kind == AffineBinaryOpKind.Mul:
            for x, c in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
                if isinstance(c, AffineConstantExpr):
                    return [(term, k * c.value) for term, k in _addends(x)]
    return [(e, 1)]


def _unrolled_index(v: SSAValue) -> bool:
    """Whether `v` is the index of a fully unrolled kernel.for (a constant in each copy)."""
    if not isinstance(v, BlockArgument):
        return False
    loop = v.block.parent_op()
    return isinstance(loop, K.ForOp) and loop.unroll is not None and loop.unroll.data == 0


def _operands_of(e: AffineExpr, num_dims: int) -> set[int]:
    """The access operands `e` reads: dim d is operand d, symbol s operand num_dims + s."""
    if isinstance(e, AffineDimExpr):
        return {e.position}
    if isinstance(e, AffineSymExpr):
        return {num_dims + e.position}
    if isinstance(e, AffineBinaryOpExpr):
        return _operands_of(e.lhs, num_dims) | _operands_of(e.rhs, num_dims)
    return set()


def _swizzle_split(pairs: list[tuple[AffineExpr, int]], repeat: int, unrolled: set[int], num_dims: int):
    """Split flat-offset terms into (inner, outer): outer the addends whose coefficient times
    stride is a multiple of `repeat` and that read only the access operands in `unrolled`, as
    (expression, stride) pairs."""
    inner: list[tuple[AffineExpr, int]] = []
    outer: list[tuple[AffineExpr, int]] = []
    for expr, stride in pairs:
        if stride == 0:
            continue
        for term, k in _addends(expr):
            if k == 0:
                continue
            whole = (k * stride) % repeat == 0 and _operands_of(term, num_dims) <= unrolled
            (outer if whole else inner).append((term, k * stride))
    return inner or [(AffineConstantExpr(0), 1)], outer


def _split_pair(hi: AffineExpr, lo: AffineExpr, size: int) -> AffineExpr | None:
    """`e` where `hi` is `e floordiv size` and `lo` is `e mod size`: two adjacent dims of a
    row-major buffer indexed by one collapsed index (a LayerNorm over (64, 8) reading
    `x[.., r floordiv 8, r mod 8]`), whose flat offset `(e floordiv k) * k + e mod k` is `e`;
    else None."""
    if not (isinstance(hi, AffineBinaryOpExpr) and isinstance(lo, AffineBinaryOpExpr)):
        return None
    if hi.kind != AffineBinaryOpKind.FloorDiv or lo.kind != AffineBinaryOpKind.Mod or hi.lhs != lo.lhs:
        return None
    k = hi.rhs
    if not (isinstance(k, AffineConstantExpr) and lo.rhs == k and k.value == size):
        return None
    return hi.lhs


def _num_elements(t: MemRefType) -> int:
    return math.prod(t.get_shape())


# ---------------------------------------------------------------------------------------------
# Entry points


def kernel_funcs(module: ModuleOp) -> list[K.KernelFuncOp]:
    return [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]


def print_cuda(module: ModuleOp) -> str:
    """The CUDA C++ translation unit for every `kernel.func` in `module`."""
    helpers: set[str] = set()
    kernels = [KernelPrinter(func, helpers).print() for func in kernel_funcs(module)]
    parts = ["// Generated by dpl-translate --to-cuda."]
    parts += [HELPERS.get(h) or helper_source(h) for h in sorted(helpers)]
    parts += kernels
    return "\n\n".join(parts) + "\n"


def _launched_types(module: ModuleOp) -> dict[str, list[Attribute]]:
    """Per kernel name, the types of the buffers the module's first launch of it passes."""
    types: dict[str, list[Attribute]] = {}
    for op in module.walk():
        if isinstance(op, K.LaunchOp):
            types.setdefault(op.callee.string_value(), [a.type for a in op.args])
    return types


def print_manifest(module: ModuleOp) -> dict:
    """Launch data per kernel, JSON-able: name, grid, block, shared memory, argument order. An
    argument the kernel takes as a row-major view of its buffer (flatten-buffers, merge-dims) also
    has the `buffer_shape` the module's launch passes, so the runtime binds the buffer itself."""
    launched = _launched_types(module)
    kernels = []
    for func in kernel_funcs(module):
        names = Namer()
        written, read = func.written_args(), func.read_args()
        args = []
        passed = launched.get(func.sym_name.data, [])
        for i, arg in enumerate(func.args):
            t = arg.type
            memref = isinstance(t, MemRefType)
            role = "in"
            if arg in written:
                role = "inout" if arg in read else "out"
            entry = {
                "name": names(arg),
                "shape": list(t.get_shape()) if memref else [],
                "dtype": dtype_name(t.element_type if memref else t, func.index_bitwidth),
                "role": role,
            }
            buffer = passed[i] if i < len(passed) else None
            if buffer is not None and K.is_view(t, buffer) and buffer != t:
                entry["buffer_shape"] = list(buffer.get_shape())
            args.append(entry)
        static_smem = sum(
            op.size_bytes()
            for op in func.body.walk()
            if isinstance(op, K.SmemOp) and not op.is_dynamic
        )
        kernels.append(
            {
                "name": func.sym_name.data,
                "grid": list(func.grid_extents),
                "block": list(func.block_extents),
                "smem_bytes": func.smem.data,
                "static_smem_bytes": static_smem,
                "args": args,
            }
        )
    manifest: dict = {"kernels": kernels}
    if needs_sm90a(module.walk()):
        manifest["arch"] = WGMMA_ARCH  # wgmma: NVRTC must target sm_90a, not sm_90
    return manifest
