"""What the build leaves out of transformers, the bulk of its import analysis (used by mnemo.spec).

transformers names every one of its ~400 model families in imports that only type checkers
follow; PyInstaller's analysis follows them all: 2,517 transformers modules went into the
build, 2,201 of them never imported when Mnemo loads an embedding model. The build keeps:

- the families that loading the bundled models really imports (found by loading them in a
  child process at build time, so a new transformers release cannot silently break the app;
  the modules that load imports are also the build's hidden imports: torch and transformers
  import some of their own by computed names, which the analysis cannot see),
- `ARCHITECTURES`, the families of the embedding models a user is likely to choose in
  settings (BGE, E5, GTE, MiniLM, mpnet, ModernBERT, Qwen3 and Gemma embeddings …),

and excludes the other families. A model of another family then fails to load with a clear
"not supported by this build" message from transformers; `make package` with it added here
fixes that. The smoke test imports every kept family's modules in the built app.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ARCHITECTURES = frozenset({
    "auto", "bert", "roberta", "xlm_roberta", "mpnet", "distilbert", "modernbert", "electra",
    "deberta_v2", "t5", "qwen2", "qwen3", "gemma3",
})

# Loads each model as the app does and lists the modules of these packages it imported:
# torch and transformers import some of their own modules by computed names.
_PROBE = """
import json, sys
from sentence_transformers import SentenceTransformer
for folder in sys.argv[1:]:
    SentenceTransformer(folder, device="cpu").encode(["probe"])
probed = {"torch", "transformers", "sentence_transformers"}
# an alias (a deprecated name bound to another module in sys.modules) is no importable name
print(json.dumps(sorted(name for name, module in sys.modules.items()
                        if name.split(".")[0] in probed and getattr(module, "__name__", name) == name)))
"""


def models_dir() -> Path:
    spec = importlib.util.find_spec("transformers")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("error: transformers is not installed in the build environment.")
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def imported_by_loading(model_folders: list[Path]) -> list[str]:
    """The torch/transformers modules that loading these models imports (in a child process)."""
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, *map(str, model_folders)],
        capture_output=True, text=True, check=False,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"},
    )
    if result.returncode != 0:
        raise SystemExit(f"error: loading the bundled models failed:\n{result.stderr[-3000:]}")
    modules: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return modules


def families(modules: list[str]) -> set[str]:
    prefix = "transformers.models."
    return {m[len(prefix):].split(".")[0] for m in modules if m.startswith(prefix)}


def split(keep: set[str], folder: Path | None = None) -> tuple[list[str], list[str]]:
    """(modules of the kept families, to import by name; families to exclude)."""
    folder = folder or models_dir()
    hidden, excluded = [], []
    for family in sorted(p for p in folder.iterdir() if (p / "__init__.py").exists()):
        name = f"transformers.models.{family.name}"
        if family.name in keep:
            hidden.append(name)
            hidden += [f"{name}.{py.stem}" for py in sorted(family.glob("*.py")) if py.stem != "__init__"]
        else:
            excluded.append(name)
    return hidden, excluded
