"""run_pipeline checks the module it is given before any pass reads it: a frontend that builds
a malformed torch op stops at the verifier, not in a lowering that trusts the types."""

import pytest
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

from dpl.dialects.torch import BitwiseLeftShiftOp
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline


def _shift(result_width: int) -> ModuleOp:
    i64 = TensorType(IntegerType(64), [4])
    block = Block(arg_types=[i64, i64])
    shift = BitwiseLeftShiftOp.create(operands=list(block.args), result_types=[TensorType(IntegerType(result_width), [4])])
    block.add_ops([shift, ReturnOp(shift.results[0])])
    func = FuncOp("f", ([i64, i64], [shift.results[0].type]), Region(block))
    return ModuleOp([func])


def test_a_malformed_input_stops_before_the_first_pass():
    with pytest.raises(VerifyException, match="operand element type i64 differs from the result element type i32"):
        run_pipeline(_shift(32), IR_PIPELINES["tensor"])


def test_a_well_formed_input_lowers():
    module = _shift(64)
    run_pipeline(module, IR_PIPELINES["tensor"])
    assert "torch." not in str(module)
