"""dpl: a hackable ML compiler on xDSL.

PyTorch -> torch -> tensor -> loop -> tile -> kernel -> CUDA. The top-level folders of the
repository are the subpackages: dpl.dialects, dpl.transforms, dpl.frontend, dpl.backend, dpl.tools.
"""
