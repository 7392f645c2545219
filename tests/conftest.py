"""Every test starts from the same torch random state, so a failure seen in CI replays here."""

import pytest
import torch


@pytest.fixture(autouse=True)
def _seed_torch():
    torch.manual_seed(0)
