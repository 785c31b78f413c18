"""pcglab from Python: the evaluators, the PCGRL environment and batch results (docs/python.md).

    import pcglab
    pcglab.birds.convert("drop_block('b11', 10)\\n")
    env = pcglab.pcgrl.DungeonVecEnv(64, seed=0)
    pcglab.runs.open("out/")

Errors are pcglab's, with the same messages as the CLI: InputError (a ValueError) for one bad
input, ItemFailure (an InputError with .kind) for an item's failure, SetupError (a RuntimeError)
for bad setup, InternalError (a RuntimeError) for a bug.
"""

import os as _os

_here = _os.path.dirname(_os.path.abspath(__file__))
# An installed package (pip install .) carries the libtorch modules and the built-in letter model
# beside it; the build tree's are found by the paths compiled into the extension.
if not _os.environ.get("PCGLAB_TORCH_LIBRARY") and _os.path.exists(_os.path.join(_here, "libpcglab_torch.so")):
    _os.environ["PCGLAB_TORCH_LIBRARY"] = _os.path.join(_here, "libpcglab_torch.so")
if not _os.environ.get("PCGLAB_MODELS_DIR") and _os.path.isdir(_os.path.join(_here, "models")):
    _os.environ["PCGLAB_MODELS_DIR"] = _os.path.join(_here, "models")

from ._pcglab import InputError, InternalError, ItemFailure, SetupError  # noqa: E402
from . import birds, pcgrl, runs  # noqa: E402

__all__ = ["InputError", "ItemFailure", "SetupError", "InternalError", "birds", "pcgrl", "runs"]
