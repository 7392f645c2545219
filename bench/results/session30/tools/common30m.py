"""Session 30 (issue 13): a masked scalar load printed as an unconditional load at its clamped
index and a select (`float v_u = x[clamped]; float v = inside ? v_u : 0.0f;`), not as
`if (inside) v = x[clamped];`: every masked load's index is clamped into its buffer
(kernel/masking.py), so the load is safe, and a loop's loads no longer sit under branches
(the column sum over dim 1 of 64 x 4099 x 1021: 4 loads a trip, each behind a branch in PTX)."""
from contextlib import contextmanager

from xdsl.dialects.builtin import IndexType, IntegerType

from dpl.backend import cuda_printer as cp
from dpl.backend.cuda_printer import float_literal
from dpl.bench.ab import patched
from dpl.dialects import kernel as K

_load = cp.KernelPrinter.op_kernel_load


def _select_load(self, op):
    mask = getattr(op, "mask", None)
    if mask is None or K.is_float4(op.results[0].type):
        return _load(self, op)
    src = self.access(op.memref, op.map.data, op.indices)
    t = op.results[0].type
    name = self.names(op.results[0])
    zero = "0" if isinstance(t, IntegerType | IndexType) else float_literal(0.0, t)
    self.emit(f"{self.ctype(t, op)} {name}_u = {src};")
    self.define(op, f"{self.value(mask)} ? {name}_u : {zero}")


@contextmanager
def select_loads():
    with patched(cp.KernelPrinter, "op_kernel_load", _select_load):
        yield
