"""What the build keeps of transformers (packaging/trim.py)."""

from __future__ import annotations

from pathlib import Path

from tests.packaging.helpers import load

trim = load("trim")


def test_kept_families_are_hidden_imports_module_by_module_and_the_rest_excluded(tmp_path: Path) -> None:
    for family, files in {"bert": ["modeling_bert", "tokenization_bert"], "whisper": ["modeling_whisper"]}.items():
        (tmp_path / family).mkdir()
        for name in ["__init__", *files]:
            (tmp_path / family / f"{name}.py").write_text("")
    (tmp_path / "deprecated").mkdir()  # a folder that is no package stays out of both lists
    hidden, excluded = trim.split({"bert"}, tmp_path)
    assert hidden == [
        "transformers.models.bert",
        "transformers.models.bert.modeling_bert",
        "transformers.models.bert.tokenization_bert",
    ]
    assert excluded == ["transformers.models.whisper"]


def test_every_embedding_family_kept_exists_in_the_installed_transformers() -> None:
    """A release that renames a family would otherwise drop it from the build unnoticed."""
    installed = {p.name for p in trim.models_dir().iterdir() if (p / "__init__.py").exists()}
    assert trim.ARCHITECTURES <= installed, trim.ARCHITECTURES - installed


def test_families_of_the_modules_a_model_load_imported() -> None:
    modules = ["torch", "transformers.models.bert.modeling_bert", "transformers.models.t5", "transformers.utils"]
    assert trim.families(modules) == {"bert", "t5"}
