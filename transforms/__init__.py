"""dpl's passes: one ModulePass per module, grouped by level (decompose/, loop/, tile/, kernel/).

`PASS_MODULES` lists every module that defines passes; `all_passes()` imports them and returns
each ModulePass by its kebab-case `name`. Add a new pass by adding its module here, once.
"""

import importlib
import inspect
from collections.abc import Callable

from xdsl.passes import ModulePass

PASS_MODULES: list[str] = [
    "dpl.transforms.decompose.elementwise",
    "dpl.transforms.decompose.activations",
    "dpl.transforms.decompose.logic",
    "dpl.transforms.decompose.reductions",
    "dpl.transforms.decompose.norms",
    "dpl.transforms.decompose.matmul",
    "dpl.transforms.decompose.attention",
    "dpl.transforms.decompose.shapes",
    "dpl.transforms.decompose.windows",
    "dpl.transforms.decompose.torch_all",
    "dpl.transforms.decompose.fold_index_maps",
    "dpl.transforms.decompose.fold_concats",
    "dpl.transforms.decompose.stack_as_select",
    "dpl.transforms.decompose.inline_constants",
    "dpl.transforms.decompose.fuse_elementwise",
    "dpl.transforms.loop.lower_to_loops",
    "dpl.transforms.loop.fuse_loops",
    "dpl.transforms.loop.fuse_attention",
    "dpl.transforms.loop.collapse_matmul_axes",
    "dpl.transforms.loop.hoist_invariants",
    "dpl.transforms.loop.fold_invariant_reductions",
    "dpl.transforms.loop.dedup_loads",
    "dpl.transforms.loop.drop_dead_buffers",
    "dpl.transforms.loop.count_cost",
    "dpl.transforms.loop.split_nests",
    "dpl.transforms.loop.split_epilogue",
    "dpl.transforms.loop.repack_operands",
    "dpl.transforms.loop.collapse_loops",
    "dpl.transforms.loop.merge_dims",
    "dpl.transforms.loop.split_row_stats",
    "dpl.transforms.loop.chunk_variance",
    "dpl.transforms.kernel.materialize",
    "dpl.transforms.kernel.tile_loop_kernels",
    "dpl.transforms.kernel.unroll_cells",
    "dpl.transforms.kernel.outline_kernels",
    "dpl.transforms.kernel.atomic_init_kernels",
    "dpl.transforms.kernel.lower_stages",
    "dpl.transforms.kernel.lower_loops",
    "dpl.transforms.kernel.lower_accesses",
    "dpl.transforms.kernel.lower_combines",
    "dpl.transforms.kernel.lower_axes",
    "dpl.transforms.kernel.dynamic_smem",
    "dpl.transforms.tile.set_target",
    "dpl.transforms.tile.tileify",
    "dpl.transforms.tile.blockify_launch",
    "dpl.transforms.tile.cooperative_reduce",
    "dpl.transforms.tile.stage_inputs",
    "dpl.transforms.tile.hold_rows",
    "dpl.transforms.tile.mark_unroll",
    "dpl.transforms.tile.schedule",
    "dpl.transforms.kernel.vectorize_access",
    "dpl.transforms.kernel.flatten_buffers",
    "dpl.transforms.kernel.drop_redundant_barriers",
    "dpl.transforms.kernel.accumulate_in_place",
    "dpl.transforms.kernel.contract_accumulations",
    "dpl.transforms.kernel.fuse_launches",
    "dpl.transforms.kernel.widen_indices",
    "dpl.transforms.tile.chunk_matmul_k",
    "dpl.transforms.tile.double_buffer",
    "dpl.transforms.tile.register_tile",
    "dpl.transforms.tile.vectorize_pointwise",
    "dpl.transforms.tile.collapse_pointwise",
    "dpl.transforms.tile.order_blocks",
    "dpl.transforms.tile.split_matmul_k",
    "dpl.transforms.tile.permute_register_tile",
    "dpl.transforms.tile.chunk_reduce",
    "dpl.transforms.tile.async_copy",
    "dpl.transforms.tile.tma_copy",
    "dpl.transforms.tile.split_inner_for_swizzle",
    "dpl.transforms.tile.pad_smem",
    "dpl.transforms.tile.pipeline_k_outer",
    "dpl.transforms.tile.pad_matmul",
    "dpl.transforms.tile.pad_columns",
    "dpl.transforms.tile.merge_columns",
    "dpl.transforms.tile.split_reduce",
    "dpl.transforms.tile.tensorize_matmul",
    "dpl.transforms.tile.tile_attention",
    "dpl.transforms.kernel.materialize_mma",
    "dpl.transforms.kernel.materialize_attention",
    "dpl.transforms.kernel.materialize_attention_wgmma",
]

# Upstream xDSL passes that are useful on dpl IR and so are offered too.
UPSTREAM_PASSES: tuple[str, ...] = ("canonicalize", "cse", "dce")


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass dpl-opt and the driver accept, by name."""
    from xdsl.universe import Universe

    upstream = Universe.get_multiverse().all_passes
    passes: dict[str, Callable[[], type[ModulePass]]] = {n: upstream[n] for n in UPSTREAM_PASSES}
    for module_name in PASS_MODULES:
        module = importlib.import_module(module_name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, ModulePass) and cls.__module__ == module_name:
                if cls.name in passes:
                    raise RuntimeError(f"pass '{cls.name}' is registered twice")
                passes[cls.name] = (lambda c=cls: c)
    return passes


def pass_summary(cls: type[ModulePass]) -> str:
    """The first line of a pass's docstring."""
    return (inspect.getdoc(cls) or "").strip().splitlines()[0] if cls.__doc__ else ""
