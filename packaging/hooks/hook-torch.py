"""PyInstaller hook for torch, in place of pyinstaller-hooks-contrib's (user hooks win).

The contributed hook hides an import of every torch submodule (2,276 here: distributed,
_inductor, onnx, export, testing …) behind `collect_submodules("torch")`: a minute to list
them and most of the build's module analysis. Mnemo only runs inference on the CPU, so the
modules torch's own imports reach are enough; the rest of this hook is the contributed one's
(data files, shared libraries, sources beside the bytecode for TorchScript's inspect calls).
"""

from PyInstaller import compat
from PyInstaller.utils.hooks import PY_DYLIB_PATTERNS, collect_data_files, collect_dynamic_libs

module_collection_mode = "pyz+py"
warn_on_missing_hiddenimports = False

datas = collect_data_files(
    "torch",
    excludes=["**/*.h", "**/*.hpp", "**/*.cuh", "**/*.lib", "**/*.cpp", "**/*.pyi", "**/*.cmake"],
)
binaries = collect_dynamic_libs("torch", search_patterns=[*PY_DYLIB_PATTERNS, "*.so.*"])
if compat.is_linux:
    # as the contributed hook: links from torch/lib to the top level confuse torch's loader
    bindepend_symlink_suppression = ["**/torch/lib/*.so*"]
elif compat.is_win:
    # Some Windows builds of torch load MKL's DLLs, which the contributed hook finds from the
    # package metadata: take its binaries there (its submodule listing runs too: slower, safe).
    import runpy
    from pathlib import Path

    import _pyinstaller_hooks_contrib

    contributed = Path(_pyinstaller_hooks_contrib.__file__).parent / "stdhooks" / "hook-torch.py"
    binaries = runpy.run_path(str(contributed))["binaries"]
