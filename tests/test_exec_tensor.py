"""The tensor-level NumPy executor on hand-written tensor IR, against NumPy."""

import numpy as np
import pytest
from xdsl.parser import Parser

from dpl.interpreters.exec_tensor import run
from dpl.dialects import make_context

RNG = np.random.default_rng(0)


def parse(text: str):
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


RELU_MATMUL = """
func.func @main(%x: tensor<16x64xf64>, %bias: tensor<64xf64>, %w: tensor<64x16xf64>) -> tensor<16x16xf64> {
  %bias_bc = tensor.index_map %bias affine_map<(d0, d1) -> (d1)> : tensor<64xf64> -> tensor<16x64xf64>
  %w_bc = tensor.index_map %w affine_map<(d0, d1, d2) -> (d1, d2)> : tensor<64x16xf64> -> tensor<16x64x16xf64>
  %add = tensor.elementwise ins(%x, %bias_bc : tensor<16x64xf64>, tensor<16x64xf64>) -> tensor<16x64xf64> {
  ^bb0(%a: f64, %b: f64):
    %s = arith.addf %a, %b : f64
    tensor.yield %s : f64
  }
  %add_bc = tensor.index_map %add affine_map<(d0, d1, d2) -> (d0, d1)> : tensor<16x64xf64> -> tensor<16x64x16xf64>
  %prod = tensor.elementwise ins(%add_bc, %w_bc : tensor<16x64x16xf64>, tensor<16x64x16xf64>) -> tensor<16x64x16xf64> {
  ^bb0(%a: f64, %b: f64):
    %p = arith.mulf %a, %b : f64
    tensor.yield %p : f64
  }
  %red = tensor.reduce sum %prod axes [1] : tensor<16x64x16xf64> -> tensor<16x1x16xf64>
  %mm = tensor.index_map %red affine_map<(d0, d1) -> (d0, 0, d1)> : tensor<16x1x16xf64> -> tensor<16x16xf64>
  %relu = tensor.elementwise ins(%mm : tensor<16x16xf64>) -> tensor<16x16xf64> {
  ^bb0(%a: f64):
    %zero = arith.constant 0.0 : f64
    %r = arith.maximumf %a, %zero : f64
    tensor.yield %r : f64
  }
  func.return %relu : tensor<16x16xf64>
}
"""


def test_relu_matmul():
    x, b, w = RNG.standard_normal((16, 64)), RNG.standard_normal(64), RNG.standard_normal((64, 16))
    (out,) = run(parse(RELU_MATMUL), [x, b, w])
    ref = np.maximum((x + b) @ w, 0)
    # A sum that cancels to near zero keeps only the error of its largest terms: compare at the output's scale.
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


RMS_NORM = """
func.func @main(%x: tensor<2x8x32xf64>, %weight: tensor<32xf64>) -> tensor<2x8x32xf64> {
  %sq = tensor.elementwise ins(%x : tensor<2x8x32xf64>) -> tensor<2x8x32xf64> {
  ^bb0(%a: f64):
    %m = arith.mulf %a, %a : f64
    tensor.yield %m : f64
  }
  %ss = tensor.reduce sum %sq axes [2] : tensor<2x8x32xf64> -> tensor<2x8x1xf64>
  %inv = tensor.elementwise ins(%ss : tensor<2x8x1xf64>) -> tensor<2x8x1xf64> {
  ^bb0(%a: f64):
    %n = arith.constant 0.03125 : f64
    %eps = arith.constant 1.0e-06 : f64
    %mean = arith.mulf %a, %n : f64
    %v = arith.addf %mean, %eps : f64
    %r = math.rsqrt %v : f64
    tensor.yield %r : f64
  }
  %inv_bc = tensor.index_map %inv affine_map<(d0, d1, d2) -> (d0, d1, 0)> : tensor<2x8x1xf64> -> tensor<2x8x32xf64>
  %w_bc = tensor.index_map %weight affine_map<(d0, d1, d2) -> (d2)> : tensor<32xf64> -> tensor<2x8x32xf64>
  %out = tensor.elementwise ins(%x, %inv_bc, %w_bc : tensor<2x8x32xf64>, tensor<2x8x32xf64>, tensor<2x8x32xf64>) -> tensor<2x8x32xf64> {
  ^bb0(%a: f64, %b: f64, %c: f64):
    %m = arith.mulf %a, %b : f64
    %n = arith.mulf %m, %c : f64
    tensor.yield %n : f64
  }
  func.return %out : tensor<2x8x32xf64>
}
"""


def test_rms_norm():
    x, w = RNG.standard_normal((2, 8, 32)), RNG.standard_normal(32)
    (out,) = run(parse(RMS_NORM), [x, w])
    ref = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(out, ref, rtol=1e-12)


MISC = """
func.func @main(%table: tensor<10x4xf64>, %ids: tensor<2x3xi64>, %a: tensor<2x3xf64>, %b: tensor<2x5xf64>)
    -> (tensor<2x3x4xf64>, tensor<2x8xf64>, tensor<4x4xf64>, tensor<3xf64>, tensor<6x4xf64>, tensor<1x1xf64>, tensor<3x2xf64>) {
  %e = tensor.gather %table[%ids] axis 0 : tensor<10x4xf64>, tensor<2x3xi64> -> tensor<2x3x4xf64>
  %c = tensor.concat %a, %b axis 1 : tensor<2x3xf64>, tensor<2x5xf64> -> tensor<2x8xf64>
  %mask = tensor.elementwise with_indices -> tensor<4x4xf64> {
  ^bb0(%i: index, %j: index):
    %gt = arith.cmpi ugt, %j, %i : index
    %ninf = arith.constant 0xFFF0000000000000 : f64
    %zero = arith.constant 0.0 : f64
    %v = arith.select %gt, %ninf, %zero : f64
    tensor.yield %v : f64
  }
  %k = tensor.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %r = tensor.index_map %e affine_map<(d0, d1) -> ((d0 * 4 + d1) floordiv 12, ((d0 * 4 + d1) floordiv 4) mod 3, (d0 * 4 + d1) mod 4)> : tensor<2x3x4xf64> -> tensor<6x4xf64>
  %p = tensor.reduce max %r axes [0, 1] : tensor<6x4xf64> -> tensor<1x1xf64>
  %t = tensor.index_map %a affine_map<(d0, d1) -> (d1, d0)> : tensor<2x3xf64> -> tensor<3x2xf64>
  func.return %e, %c, %mask, %k, %r, %p, %t : tensor<2x3x4xf64>, tensor<2x8xf64>, tensor<4x4xf64>, tensor<3xf64>, tensor<6x4xf64>, tensor<1x1xf64>, tensor<3x2xf64>
}
"""


def test_gather_concat_mask_constant_reshape():
    table = RNG.standard_normal((10, 4))
    ids = RNG.integers(0, 10, (2, 3))
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 5))
    e, c, mask, k, r, p, t = run(parse(MISC), [table, ids, a, b])
    np.testing.assert_array_equal(e, table[ids])
    np.testing.assert_array_equal(c, np.concatenate([a, b], 1))
    np.testing.assert_array_equal(mask, np.triu(np.full((4, 4), -np.inf), 1))
    np.testing.assert_array_equal(k, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(r, table[ids].reshape(6, 4))
    np.testing.assert_array_equal(p, table[ids].max(keepdims=True).reshape(1, 1))
    np.testing.assert_array_equal(t, a.T)


def test_wrong_input_shape_is_one_line_error():
    with pytest.raises(ValueError, match="input 0 has shape"):
        run(parse(RMS_NORM), [np.zeros((2, 8)), np.zeros(32)])


BCAST_CONTRACTION = """
func.func @main(%x: tensor<3xf64>, %y: tensor<3x5xf64>) -> tensor<1x4x5xf64> {
  %xb = tensor.index_map %x affine_map<(d0, d1, d2) -> (d0)> : tensor<3xf64> -> tensor<3x4x5xf64>
  %yb = tensor.index_map %y affine_map<(d0, d1, d2) -> (d0, d2)> : tensor<3x5xf64> -> tensor<3x4x5xf64>
  %p = tensor.elementwise ins(%xb, %yb : tensor<3x4x5xf64>, tensor<3x4x5xf64>) -> tensor<3x4x5xf64> {
  ^bb0(%a: f64, %b: f64):
    %m = arith.mulf %a, %b : f64
    tensor.yield %m : f64
  }
  %r = tensor.reduce sum %p axes [0] : tensor<3x4x5xf64> -> tensor<1x4x5xf64>
  %s = tensor.reduce sum %p axes [0, 1] : tensor<3x4x5xf64> -> tensor<1x1x5xf64>
  %sb = tensor.index_map %s affine_map<(d0, d1, d2) -> (d0, 0, d2)> : tensor<1x1x5xf64> -> tensor<1x4x5xf64>
  %t = tensor.elementwise ins(%r, %sb : tensor<1x4x5xf64>, tensor<1x4x5xf64>) -> tensor<1x4x5xf64> {
  ^bb0(%a: f64, %b: f64):
    %m = arith.addf %a, %b : f64
    tensor.yield %m : f64
  }
  func.return %t : tensor<1x4x5xf64>
}
"""


def test_contraction_shortcut_handles_broadcast_dims():
    """sum(mul(index_map, index_map)) runs as einsum; unread dims broadcast or scale the sum."""
    x, y = RNG.standard_normal(3), RNG.standard_normal((3, 5))
    (out,) = run(parse(BCAST_CONTRACTION), [x, y])
    prod = np.broadcast_to((x[:, None] * y)[:, None, :], (3, 4, 5))
    ref = prod.sum(0, keepdims=True) + prod.sum((0, 1), keepdims=True)
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


SLICED_CONTRACTION = """
func.func @main(%q: tensor<2x5x7xf64>, %k: tensor<2x3x7xf64>) -> tensor<2x5x3xf64> {
  %qb = tensor.index_map %q affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)> : tensor<2x5x7xf64> -> tensor<2x5x4x3xf64>
  %kb = tensor.index_map %k affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)> : tensor<2x3x7xf64> -> tensor<2x5x4x3xf64>
  %p = tensor.elementwise ins(%qb, %kb : tensor<2x5x4x3xf64>, tensor<2x5x4x3xf64>) -> tensor<2x5x4x3xf64> {
  ^bb0(%a: f64, %b: f64):
    %m = arith.mulf %a, %b : f64
    tensor.yield %m : f64
  }
  %r = tensor.reduce sum %p axes [2] : tensor<2x5x4x3xf64> -> tensor<2x5x1x3xf64>
  %o = tensor.index_map %r affine_map<(d0, d1, d2) -> (d0, d1, 0, d2)> : tensor<2x5x1x3xf64> -> tensor<2x5x3xf64>
  func.return %o : tensor<2x5x3xf64>
}
"""


def test_contraction_shortcut_reads_only_the_box():
    """A contraction over the first 4 of 7 features (q.chunk(...)[0] @ k.chunk(...)[0].mT):
    the einsum shortcut reads each source up to the box's extent, as the index_maps do."""
    q, k = RNG.standard_normal((2, 5, 7)), RNG.standard_normal((2, 3, 7))
    (out,) = run(parse(SLICED_CONTRACTION), [q, k])
    ref = np.einsum("bsd,btd->bst", q[..., :4], k[..., :4])
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
