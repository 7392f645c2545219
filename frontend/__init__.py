"""Capture of PyTorch programs into the torch dialect (see docs/frontend.md).

    from dpl.frontend import capture, capture_expression
    prog = capture_expression("torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))")
    print(prog.module)        # func.func @main(%x: tensor<1x32x2048xf32>, %p_weight: ...)
"""

from dpl.frontend.capture import (
    Program,
    UnsupportedOpError,
    capture,
    capture_expression,
)

__all__ = ["Program", "UnsupportedOpError", "capture", "capture_expression"]
