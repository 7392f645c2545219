"""dpl: a hackable ML compiler on xDSL.

PyTorch -> torch -> tensor -> loop -> tile -> kernel -> CUDA. The top-level folders of the
repository are the subpackages, each importing only the layers below it:

    dpl.tools, dpl.bench -> dpl.driver -> dpl.frontend, dpl.transforms, dpl.backend,
    dpl.interpreters -> dpl.dialects
"""
