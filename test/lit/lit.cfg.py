# lit configuration for dpl's FileCheck tests over textual IR.
import os
import shutil

import lit.formats

config.name = "dpl"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "inputs"]
config.test_source_root = os.path.dirname(__file__)
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(shutil.which("dpl-opt") or ""), os.environ.get("PATH", "")]
)
for var in ("HOME", "PYTHONPATH", "VIRTUAL_ENV", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%dpl-opt", "dpl-opt"))
config.substitutions.append(("%dpl-translate", "dpl-translate"))
config.substitutions.append(("%dpl", "dpl"))
config.substitutions.append(("%python", shutil.which("python3") or "python3"))
config.substitutions.append(("%filecheck", "filecheck"))
if shutil.which("nvcc"):
    config.available_features.add("nvcc")
