"""whole-k old/new: `old()` restores the SIMT matmul pipeline before whole-k (K always padded to
k-tile 32 and chunked, stage-inputs at 48 KiB); `new()` the pipeline as it is."""
from dpl.transforms.tile import schedule_classes as SC

NEW = SC.PIPELINES["matmul"]
OLD = (NEW.replace("stage-inputs{{smem-bytes={smem}}}", "stage-inputs").replace(" whole-k={whole_k} sms={sms}", "")
       .replace("max-extent={unroll}", "max-extent=32"))
assert OLD != NEW and "whole" not in OLD


def old():
    SC.PIPELINES["matmul"] = OLD


def new():
    SC.PIPELINES["matmul"] = NEW

NEWU = NEW  # (the unrolled whole K landed: NEW is it)


def newu():
    """new, and a whole K's loop unrolled (mark-unroll up to 132)."""
    SC.PIPELINES["matmul"] = NEWU
