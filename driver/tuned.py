"""Tuned schedules in the compile path: each loop kernel's pick from the tuning cache, attached
as `tile.point` before `schedule` runs.

    tuning = Tuning.default()                    # the user's cache, this machine's GPU
    run_tuned(module, "split-nests,schedule,materialize", tuning)

`run_tuned` runs a pipeline string; where it holds `schedule`, the passes before it run first, then
every `loop.kernel` whose key (`kernel_key`: its loop IR alone, names left out) has a pick for this
device and dpl version gets `tile.point` (the pick) and `tile.tuned` (what was measured), then
the rest runs. `schedule` honours the point, so `dpl compile --ir tile` shows which kernels are
tuned; without a pick a kernel keeps the heuristics. The device is the GPU's name (torch's), or
`$DPL_TUNE_DEVICE` / `--tune-device` on a machine without one (then tuned schedules of that device
are used); with neither, and with `--no-tune-cache`, nothing is looked up.
"""

from __future__ import annotations

import hashlib
import os
import sys
import warnings
from dataclasses import dataclass, field

from xdsl.dialects.builtin import DictionaryAttr, FloatAttr, IntegerAttr, ModuleOp, StringAttr, f64, i1, i64
from xdsl.ir import Block, Operation
from xdsl.utils.arg_spec import parse_pipeline

from dpl.dialects import loop
from dpl.driver.tune_cache import TuneCache, TuneCacheWarning
from dpl.transforms.pipelines import normalize_pipeline, run_pipeline
from dpl.transforms.tile.schedule import POINT, TUNED, Schedule, kernel_space, point_attr, scratch_module
from dpl.transforms.tile.schedule_mma import check_precision


def kernel_key(kernel: loop.KernelOp, schedule: Schedule | None = None) -> str:
    """sha256 of `kernel` alone (in a scratch @main of its buffers) printed with every name left
    out and without its tuning attributes, and of the matmul precision `schedule` gives it
    (resolved: a kernel tuned at 3xtf32 is another entry than at ieee): equal kernels of
    different programs share it."""
    schedule = (Schedule() if schedule is None else schedule).resolved(kernel)
    precision = check_precision(schedule.precision, schedule.target)
    module, _ = scratch_module(kernel)
    for op in module.walk():
        if isinstance(op, loop.KernelOp):
            op.properties["sym_name"] = StringAttr("k")
            op.attributes.pop(POINT, None)
            op.attributes.pop(TUNED, None)
        for region in op.regions:
            for block in region.blocks:
                _anonymous(block)
        for r in op.results:
            r.name_hint = None
    return hashlib.sha256(f"{module}\nprecision {precision}\ntarget {schedule.target}".encode()).hexdigest()


def _anonymous(block: Block) -> None:
    for arg in block.args:
        arg.name_hint = None


def split_at_schedule(spec: str) -> tuple[str, str] | None:
    """`spec` cut before its `schedule` pass: (the passes before, `schedule` and after), or None
    when it has no `schedule`."""
    spec = normalize_pipeline(spec)
    passes = [str(p) for p in parse_pipeline(spec)] if spec else []
    names = [p.split("{")[0] for p in passes]
    if "schedule" not in names:
        return None
    i = names.index("schedule")
    return ",".join(passes[:i]), ",".join(passes[i:])


def device_name() -> str | None:
    """This machine's GPU (torch's name for device 0), where torch is loaded and sees one."""
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_available():
            return str(torch.cuda.get_device_name(0))
    except Exception:  # noqa: BLE001 - a broken driver is only no device here
        pass
    return None


@dataclass
class Tuning:
    """Where tuned schedules come from: a cache and the device they were measured on."""

    cache: TuneCache | None
    device: str | None
    attached: dict[str, str] = field(default_factory=dict)  # kernel name -> key, of those tuned

    @classmethod
    def default(cls, use_cache: bool = True, device: str | None = None) -> Tuning:
        """The user's tuning cache for `device` (else $DPL_TUNE_DEVICE, else this GPU); off with
        `use_cache=False` or where no device is known."""
        device = device or os.environ.get("DPL_TUNE_DEVICE") or (device_name() if use_cache else None)
        if not use_cache or not device:
            return cls(None, device)
        return cls(TuneCache(), device)

    @classmethod
    def off(cls) -> Tuning:
        return cls(None, None)

    def attach(self, module: Operation, schedule: Schedule | None = None) -> int:
        """Give every loop kernel of `module` with a pick (for the precision and target of the
        `schedule` that will run) its `tile.point` and `tile.tuned`; returns how many got one. A
        pick that is not a point of the kernel's space (a stale entry) is skipped with a warning."""
        if self.cache is None or self.device is None:
            return 0
        schedule = Schedule() if schedule is None else schedule
        count = 0
        for kernel in [k for k in module.walk() if isinstance(k, loop.KernelOp)]:
            if POINT in kernel.attributes:
                continue  # a point given by hand wins
            key = kernel_key(kernel, schedule)
            pick = self.cache.pick(key, self.device)
            if pick is None:
                continue
            resolved = schedule.resolved(kernel)
            space = kernel_space(kernel, resolved.precision, resolved.target, resolved.sms)
            bad = [k for k, v in pick.point.items() if k not in space or v not in space[k]]
            if bad:
                warnings.warn(f"dpl: tuned schedule of @{kernel.sym_name.data} has {bad[0]}="
                              f"{pick.point.get(bad[0])}, not in its space now; using the default",
                              TuneCacheWarning, stacklevel=2)  # fmt: skip
                continue
            kernel.attributes[POINT] = point_attr(pick.point)
            kernel.attributes[TUNED] = tuned_attr(self.device, pick.us, pick.default_us, pick.trials, pick.confirmed)
            self.attached[kernel.sym_name.data] = key
            count += 1
        return count


def tuned_attr(device: str, us: float, default_us: float, trials: int, confirmed: bool) -> DictionaryAttr:
    """`tile.tuned`: the device, the pick's and the default schedule's measured times (us), the
    points measured, and whether the pick was re-measured against the default."""
    return DictionaryAttr({
        "device": StringAttr(device),
        "us": FloatAttr(round(us, 3), f64),
        "default_us": FloatAttr(round(default_us, 3), f64),
        "trials": IntegerAttr(trials, i64),
        "confirmed": IntegerAttr(int(confirmed), i1),
    })  # fmt: skip


def run_tuned(module: ModuleOp, spec: str, tuning: Tuning | None, verbose: bool = False) -> int:
    """Run pipeline `spec` over `module`, attaching tuned points before its `schedule` (see the
    module docstring); returns how many kernels got a tuned point."""
    cut = split_at_schedule(spec) if tuning is not None and tuning.cache is not None else None
    if cut is None:
        run_pipeline(module, spec, verbose)
        return 0
    before, rest = cut
    run_pipeline(module, before, verbose)
    schedule = Schedule.from_pass_spec(next(iter(parse_pipeline(rest))))
    count = tuning.attach(module, schedule)  # type: ignore[union-attr]
    run_pipeline(module, rest, verbose)
    return count
