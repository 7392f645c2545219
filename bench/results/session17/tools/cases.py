"""Session 17 probe programs: name -> (expression for `dpl tune -c`, fn, input shapes)."""
import torch
F = torch.nn.functional
def _bmm_tt(a, b): return torch.bmm(a.transpose(1, 2), b.transpose(1, 2))
CASES = {
    "softmax_1597x64x1117": ("torch.softmax(torch.randn(1597,64,1117), dim=-1)", lambda x: torch.softmax(x, -1), [(1597, 64, 1117)]),
    "softmax_131072x700": ("torch.softmax(torch.randn(131072,700), dim=-1)", lambda x: torch.softmax(x, -1), [(131072, 700)]),
    "softmax_32768x2999": ("torch.softmax(torch.randn(32768,2999), dim=-1)", lambda x: torch.softmax(x, -1), [(32768, 2999)]),
    "layernorm_65536x1500": ("torch.nn.functional.layer_norm(torch.randn(65536,1500), (1500,))", lambda x: F.layer_norm(x, (1500,)), [(65536, 1500)]),
    "sum_d1_64x4099x1021": ("torch.randn(64,4099,1021).sum(dim=1)", lambda x: x.sum(dim=1), [(64, 4099, 1021)]),
    "bmm_tt_21x25x1381x101": ("torch.bmm(torch.randn(21,101,25).transpose(1,2), torch.randn(21,1381,101).transpose(1,2))", _bmm_tt, [(21, 101, 25), (21, 1381, 101)]),
    "mm_tt_512x2741x79": ("torch.randn(79,512).t() @ torch.randn(2741,79).t()", lambda a, b: a.t() @ b.t(), [(79, 512), (2741, 79)]),
}
