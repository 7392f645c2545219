"""The tuning space of `schedule` (schedule.py) and its points.

The space of a kernel (`kernel_space`) has one dimension per tunable option
(`dpl.transforms.tunable`) of the passes of its class's pipeline, plus the schedule's own
`split-epilogue` for a matmul with an epilogue it can split, and for a matmul the tensor cores
can take at the schedule's precision and target (schedule_mma.mma_candidates) the schedule's own
`tensor_cores` and the tunable options of the tensor-core pipeline (tensorize-matmul's block tile
`bm` x `bn`; split-K's `splits` is shared with SIMT; K stays chunked by 32: PINNED). A point
with `tensor_cores = true` is scheduled with the tensor-core pipeline (at the schedule's
precision), one without it on SIMT; a tensor-core point tensorize-matmul declines is an error,
never a silent SIMT fallback. A `loop.kernel` carrying
`tile.point = {rows = 8 : i64, k_tile = 64 : i64, ...}` (a point of that space; options left out
keep their class default) is scheduled with its class's pipeline at that point (`point_spec`)
instead of the heuristics; `tile.tuned = {...}` (what the tuner measured) is kept on the tile
kernel, so `--ir tile` shows which kernels are tuned. `dpl tune` (driver/tune.py) finds the
points and the driver attaches them from its cache. An option value the pass rejects is the
pass's one-line error; an option the class's passes do not have is an error naming the options
they do have. `Schedule.default_point` is the point the heuristics pick.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, i1, i64
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline

from dpl.dialects import loop
from dpl.transforms import all_passes
from dpl.transforms.loop.repack_operands import declines as repack_declines
from dpl.transforms.loop.split_epilogue import declines as split_epilogue_declines
from dpl.transforms.tile.schedule_classes import MATMUL_TILES, PIPELINES, MatmulTile, classify, scratch
from dpl.transforms.tile.schedule_mma import PINNED, MmaChoice, check_precision, mma_candidates, mma_layout
from dpl.transforms.tile.target import DEFAULT_ARCH, arch_smem, target_of
from dpl.transforms.tunable import tunables

POINT = "tile.point"
"""`loop.kernel` attribute: the point of its space to schedule it at, instead of the heuristics."""
TUNED = "tile.tuned"
"""Kernel attribute: what the tuner measured for the point (kept on the tile kernels)."""
SPLIT_EPILOGUE = "split_epilogue"
"""The schedule's own dimension: a matmul's epilogue split off into a kernel of its own."""
TENSOR_CORES = "tensor_cores"
"""The schedule's own dimension: a matmul on the tensor cores (tensorize-matmul's pipeline, at the
schedule's precision) or on SIMT fp32 (the matmul pipeline); a point without it is on SIMT."""

REPACK_OPERANDS = "repack"
"""The schedule's own dimension: a matmul reading operands whose rows are not a multiple of 16
bytes reads copies of them made aligned first (repack-operands), or reads them as they are."""

#: The choices of the schedule's own dimensions (its tunable `split_epilogue` and `tensor_cores`,
#: and its `repack`).
SCHEDULE_CHOICES: dict[str, tuple[object, ...]] = {
    SPLIT_EPILOGUE: (False, True), TENSOR_CORES: (False, True), REPACK_OPERANDS: (False, True),
}


#: The flash kernel's pipeline before the schedule gives it the kernel's key tile, splits and
#: precision (Schedule.flash_spec).
FLASH_DEFAULT = {"tile": 64, "precision": "3xtf32", "splits": 1, "wide": 0, "chain": 4, "wgmma": 0}


def class_pipeline(cls: str, target: str, sms: int, rows: int = 4, cols: int = 4) -> str:
    """The pipeline string of class `cls` as the schedule runs it (a matmul with a `rows` x `cols`
    register tile; flash attention with FLASH_DEFAULT: the schedule picks per kernel,
    Schedule.flash_spec)."""
    if cls == "matmul":
        return matmul_tile(rows, cols).spec(target, sms)
    if cls == "flash attention":
        return PIPELINES[cls].format(target=target, sms=sms, **FLASH_DEFAULT)
    return PIPELINES[cls].format(target=target, sms=sms)


def tensor_pipeline(sms: int, smem: int, layout: str = "wgmma", bm: int = 128, bn: int = 128,
                    precision: str = "3xtf32") -> str:  # fmt: skip
    """The tensor-core pipeline of a matmul (schedule_mma.MmaChoice) with a bm x bn block tile, on
    a target of `sms` multiprocessors and `smem` shared memory bytes per block."""
    return MmaChoice(layout, bm, bn, precision).spec(sms, smem)


def matmul_tile(rows: int, cols: int) -> MatmulTile:
    """The MATMUL_TILES entry of a rows x cols register tile, else one whose blocks per SM for
    the split-K model are guessed from its registers (16 cells: 3 blocks, 64: 1)."""
    for choice in MATMUL_TILES:
        if (choice.rows, choice.cols) == (rows, cols):
            return choice
    return MatmulTile(rows, cols, max(1, min(8, 48 // (rows * cols))), 0.0)


def _pass_specs(spec: str) -> list[tuple[ArgSpec, type[ModulePass]]]:
    passes = all_passes()
    return [(a, passes[a.name]()) for a in parse_pipeline(spec)]


def own_tunables(pass_cls: type[ModulePass], cls: str | None = None) -> dict[str, tuple[object, ...]]:
    """The tunable options of a pass of class `cls`'s pipeline (with None: of any class's); a
    nested `schedule` (which schedules what the class's passes leave, e.g. flash attention's
    combine kernel) adds none: its own dimensions are a matmul's (SCHEDULE_CHOICES)."""
    return {} if pass_cls.name == "schedule" else tunables(pass_cls, cls)


def class_space(cls: str) -> dict[str, tuple[object, ...]]:
    """Every tunable option of the passes of class `cls`'s pipeline (name -> choices); two
    passes declaring one name share the dimension (the choices both allow)."""
    space: dict[str, tuple[object, ...]] = {}
    for _, pass_cls in _pass_specs(class_pipeline(cls, DEFAULT_ARCH, 1)):
        for name, choices in own_tunables(pass_cls, cls).items():
            space[name] = tuple(c for c in space[name] if c in choices) if name in space else choices
    if cls == "matmul":
        space.update(SCHEDULE_CHOICES)
        space.update({k: v for k, v in tensor_space().items() if k not in space})
    return space


def tensor_space() -> dict[str, tuple[object, ...]]:
    """The tunable options of the tensor-core pipeline's passes, less those it pins (PINNED)."""
    space: dict[str, tuple[object, ...]] = {}
    for _, pass_cls in _pass_specs(tensor_pipeline(1, arch_smem(DEFAULT_ARCH))):
        space.update({k: v for k, v in tunables(pass_cls).items() if k not in PINNED})
    return space


def tensor_only() -> set[str]:
    """The dimensions of a matmul's space that only its tensor-core pipeline has (bm, bn)."""
    simt = {k for _, c in _pass_specs(class_pipeline("matmul", DEFAULT_ARCH, 1)) for k in tunables(c)}
    return set(tensor_space()) - simt


def unused_options(point: Mapping[str, object], space: Mapping[str, object]) -> set[str]:
    """The dimensions of `space` that `point` does not use: a tensor-core point's SIMT-only
    options, a SIMT point's tensor-core-only ones (bm, bn)."""
    if TENSOR_CORES not in space:
        return set()
    if point.get(TENSOR_CORES):
        return set(space) - set(tensor_space()) - {TENSOR_CORES, SPLIT_EPILOGUE, REPACK_OPERANDS}
    return tensor_only() & set(space)


def kernel_space(kernel: loop.KernelOp, precision: str = "auto", target: str | None = None,
                 sms: int | None = None) -> dict[str, tuple[object, ...]]:  # fmt: skip
    """The tuning space of `kernel` compiled at `precision` for `target`: its class's, without a
    split of an epilogue it lacks, without copies of operands it reads aligned already, and
    without the tensor cores where the precision, target or its shape rule them out
    (schedule_mma.mma_choice). `target` and `sms` default to the #kernel.target of `kernel`'s
    module (transforms/tile/target.py)."""
    target = target_of(kernel).arch.data if target is None else target
    sms = target_of(kernel).sms.data if sms is None else sms
    space = class_space(classify(kernel))
    if SPLIT_EPILOGUE in space and split_epilogue_declines(kernel) is not None:
        del space[SPLIT_EPILOGUE]
    if REPACK_OPERANDS in space and repack_declines(kernel) is not None:
        del space[REPACK_OPERANDS]
    if TENSOR_CORES in space:
        cands = mma_candidates(Context(), kernel, check_precision(precision, target), target, sms, scratch)
        if isinstance(cands, str):
            for k in (TENSOR_CORES, *tensor_only()):
                del space[k]
    return space


def class_defaults(cls: str, target: str, sms: int) -> dict[str, object]:
    """Each dimension of class `cls`'s space at the value its default pipeline gives it."""
    pipelines = [class_pipeline(cls, target, sms)] + ([tensor_pipeline(sms, arch_smem(target))] if cls == "matmul" else [])
    return spec_defaults(pipelines, cls)


def spec_defaults(pipelines: list[str], cls: str | None = None) -> dict[str, object]:
    """Each tunable option (of class `cls`, or any) of the passes of `pipelines` at the value
    they give it (the first pass declaring a name wins)."""
    point: dict[str, object] = {}
    for spec in pipelines:
        for arg, pass_cls in _pass_specs(spec):
            given = arg.normalize_parameter_names().parameters
            for name in own_tunables(pass_cls, cls):
                if name not in point:
                    point[name] = given[name][0] if name in given else getattr(pass_cls(), name)
    return point


def point_spec(cls: str, point: Mapping[str, object], target: str, sms: int, precision: str = "auto",
               pipeline: str | None = None, smem: int | None = None) -> str:  # fmt: skip
    """The pipeline string of class `cls` at `point`: each pass of the class's pipeline (or of
    `pipeline`, the one the schedule picked for the kernel; a matmul with `tensor_cores`: the
    tensor-core pipeline at `precision`) with its tunable options set from the point (the pass
    checks the values: a ValueError names them). `smem`: the shared memory bytes per block of
    the target (default: `target`'s, transforms/tile/target.py)."""
    space = class_space(cls)
    unknown = [k for k in point if k not in space]
    if unknown:
        raise ValueError(
            f"'{unknown[0]}' is not a tunable option of a {cls} kernel "
            f"(those are: {', '.join(space)})"
        )
    rows, cols = int(point.get("rows", 4)), int(point.get("cols", 4))  # type: ignore[arg-type]
    pinned: tuple[str, ...] = ()
    pipeline = class_pipeline(cls, target, sms, rows, cols) if pipeline is None else pipeline
    if point.get(TENSOR_CORES):
        resolved = check_precision(precision, target)
        layout = mma_layout(resolved, target)
        if layout is None:
            raise ValueError(f"tensor_cores=true needs tensor cores: precision {resolved} on {target} has none")
        defaults = all_passes()["tensorize-matmul"]()
        bm, bn = (int(point.get(k, getattr(defaults, k))) for k in ("bm", "bn"))  # type: ignore[call-overload]
        pipeline, pinned = tensor_pipeline(sms, arch_smem(target) if smem is None else smem, layout, bm, bn, resolved), PINNED
    parts = []
    for arg, pass_cls in _pass_specs(pipeline):
        params = dict(arg.normalize_parameter_names().parameters)
        for name in [n for n in own_tunables(pass_cls) if n not in pinned]:
            given = params[name][0] if name in params else getattr(pass_cls(), name)
            if name in point and point[name] != given:  # written only where it changes something
                params[name] = (point[name],)  # type: ignore[assignment]
        pass_cls.from_pass_spec(ArgSpec(arg.name, params))  # the pass's own checks of its options
        parts.append(spec_text(arg.name, params))
    return ",".join(parts)


def spec_text(name: str, params: Mapping[str, tuple[object, ...]]) -> str:
    """`name{a-b=1 c=true}` as a pipeline string writes it (strings unquoted where they can be)."""

    def value(v: object) -> str:
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, str) and not v.replace("_", "").isalnum():
            return f'"{v}"'
        return str(v)

    args = " ".join(f"{k.replace('_', '-')}={','.join(map(value, v))}" for k, v in params.items())
    return f"{name}{{{args}}}" if args else name


def point_attr(point: Mapping[str, object]) -> DictionaryAttr:
    """`point` as the `tile.point` attribute."""
    return DictionaryAttr(
        {k: IntegerAttr(int(v), i1) if isinstance(v, bool) else IntegerAttr(int(v), i64) for k, v in point.items()}  # type: ignore[arg-type]
    )


def read_point(kernel: loop.KernelOp, attr: object) -> dict[str, object]:
    """The `tile.point` of `kernel` as a dict (a malformed one is a one-line ValueError)."""
    where = f"schedule: @{kernel.sym_name.data}: {POINT}"
    if not isinstance(attr, DictionaryAttr):
        raise ValueError(f"{where} must be a dictionary of option values, got {attr}")
    point: dict[str, object] = {}
    for k, v in attr.data.items():
        if isinstance(v, IntegerAttr) and v.type == i1:
            point[k] = bool(v.value.data)
        elif isinstance(v, IntegerAttr):
            point[k] = v.value.data
        else:
            raise ValueError(f"{where}: {k} must be an integer or a bool, got {v}")
    return point


def format_point(point: Mapping[str, object]) -> str:
    return "{" + ", ".join(f"{k}={str(v).lower()}" for k, v in point.items()) + "}"

