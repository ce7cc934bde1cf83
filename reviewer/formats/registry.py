"""The registry of dataset and prediction formats.

Each format module registers an instance with a decorator when imported;
``load_all`` imports the built-in modules. Lookup is by name, or by detection
when the user does not name a format.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from reviewer.errors import FormatNotDetected, InputError
from reviewer.formats._jsonio import open_input
from reviewer.formats.base import DatasetFormat, RunFormat

_DATASET_FORMATS: dict[str, DatasetFormat] = {}
_RUN_FORMATS: dict[str, RunFormat] = {}

BUILTIN_MODULES = (
    "reviewer.formats.tooljson",
    "reviewer.formats.nestools",
    "reviewer.formats.deepjson",
    "reviewer.formats.schemagen",
    "reviewer.formats.bfcl",
    "reviewer.formats.toolselect",
    "reviewer.formats.outputs_jsonl",
)


def dataset_format(cls):
    """Class decorator: register one instance of a DatasetFormat."""
    inst = cls()
    _DATASET_FORMATS[inst.name] = inst
    return cls


def run_format(cls):
    """Class decorator: register one instance of a RunFormat."""
    inst = cls()
    _RUN_FORMATS[inst.name] = inst
    return cls


def load_all() -> None:
    for mod in BUILTIN_MODULES:
        importlib.import_module(mod)


def loaded_dataset_format(name: str) -> DatasetFormat:
    """A dataset format whose module is already imported, without importing the others
    (a process that reads one known format starts faster)."""
    return _DATASET_FORMATS[name]


def dataset_formats() -> dict[str, DatasetFormat]:
    load_all()
    return dict(_DATASET_FORMATS)


def run_formats() -> dict[str, RunFormat]:
    load_all()
    return dict(_RUN_FORMATS)


def _pick(registry: dict, name: str | None, path: Path, what: str):
    _check_path_text(path)
    if path.exists() and not path.is_dir():
        # a FIFO, a device or a file over $REVIEWER_MAX_INPUT_BYTES: refused before any reader opens
        # it; a reader that reads its file whole refuses one over the default limit itself
        # (open_input), one that streams it takes any size (see _jsonio.file_limit)
        open_input(path, streamed=True).close()
    if name:
        try:
            return registry[name]
        except KeyError:
            known = ", ".join(sorted(registry))
            raise InputError(path, None, f"unknown {what} format {name!r} (known: {known})") from None
    if not path.exists():
        raise InputError(path, None, "no such file or folder")
    found = [f for f in registry.values() if _detects(f, path)]
    if len(found) == 1:
        return found[0]
    if not found and path.is_file() and path.stat().st_size < 4096 and not path.read_bytes().strip():
        raise InputError(path, None, "is empty; nothing to import")
    if not found:
        raise FormatNotDetected(path, what, sorted(registry), other=_other_kind(what, path))
    raise FormatNotDetected(path, what, sorted(registry), candidates=[f.name for f in found])


def _check_path_text(path: Path) -> None:
    """InputError for a path that is not UTF-8 text (a name the file system holds as bytes no
    text spells): every path an import reads goes into the database (the dataset's source,
    each item's file), where both databases refuse such text; said here, with the path
    written with escapes, instead of as a lone surrogate in the dataset's meta."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")
        raise InputError(shown, None, "the path is not UTF-8 text (a folder or file name holds a byte no text "
                                      "can spell): rename it, then import it again") from None


def _other_kind(what: str, path: Path) -> tuple[str, str] | None:
    """(name, label) of the one format of the other kind (prediction for a dataset, and the
    reverse) that recognises ``path``: a file given to the wrong import."""
    others = run_formats() if what == "dataset" else dataset_formats()
    found = [f for f in others.values() if _detects(f, path)]
    return (found[0].name, found[0].label) if len(found) == 1 else None


def _detects(fmt, path: Path) -> bool:
    """``fmt.detect(path)``, where a file it cannot read as it expects (bytes that are not
    UTF-8, a line it cannot decode) means "not this format", never a traceback: the reader
    named with --format, or the one that detects the file, reports the problem with its line."""
    try:
        return bool(fmt.detect(path))
    except (UnicodeDecodeError, ValueError, OSError, RecursionError):
        return False


def run_formats_reading(path: Path) -> list[RunFormat]:
    """The run formats that recognise ``path`` (a file, or a folder one reads as a whole)."""
    return [f for f in run_formats().values() if _detects(f, Path(path))]


def answers(fmt: RunFormat, dataset_format: str | None) -> bool:
    """Whether ``fmt``'s files answer datasets of ``dataset_format`` (None: any)."""
    return dataset_format is None or fmt.dataset_format in ("*", dataset_format)


def whole_folder_format(folder: Path, name: str | None = None, dataset_format: str | None = None) -> RunFormat | None:
    """The run format that reads ``folder`` as ONE run (BFCL's result folder, a NesTools model
    folder): the named one if it does, else the one detected (answering ``dataset_format``
    datasets; None: any); None when the folder is rather a folder of prediction files."""
    readers = run_formats_reading(folder)
    if name:
        fmt = find_run_format(folder, name)
        return fmt if fmt in readers else None
    found = [f for f in readers if answers(f, dataset_format)]
    if len(found) > 1:
        raise FormatNotDetected(folder, "prediction", sorted(run_formats()), candidates=[f.name for f in found])
    return found[0] if found else None


def prediction_files(folder: Path, chosen: RunFormat | None = None, dataset_format: str | None = None,
                     check=lambda: None) -> tuple[list[tuple[Path, RunFormat]], list[str]]:
    """The files directly in ``folder`` that are predictions, sorted by name, each with the
    format that reads it (``chosen``, else the one detected that answers ``dataset_format``
    datasets; None: any), and the names of the other files. A folder with none is an
    InputError saying why; a file more than one format recognises is FormatNotDetected.
    ``check`` is called before each file (a job's cancel check)."""
    folder = Path(folder)
    picked: list[tuple[Path, RunFormat]] = []
    skipped: list[str] = []
    for file in sorted((p for p in folder.iterdir() if p.is_file()), key=lambda p: p.name):
        check()
        readers = run_formats_reading(file)
        if chosen is not None:
            found = [chosen] if chosen in readers else []
        else:
            found = [f for f in readers if answers(f, dataset_format)]
        if len(found) > 1:
            raise FormatNotDetected(file, "prediction", sorted(run_formats()), candidates=[f.name for f in found])
        if found:
            picked.append((file, found[0]))
        else:
            skipped.append(file.name)
    if not picked:
        if not skipped:
            why = "it holds no files (the files of its subfolders are not read)"
        else:
            reads = (f"{chosen.label} reads" if chosen else
                     f"answers {dataset_format} datasets" if dataset_format else "a known format reads")
            why = f"none of its {len(skipped)} file(s) is a prediction file that {reads}"
        raise InputError(folder, None, f"no prediction file in this folder: {why}; nothing was imported")
    return picked, skipped


def find_dataset_format(path: Path, name: str | None = None) -> DatasetFormat:
    return _pick(dataset_formats(), name, Path(path), "dataset")


def find_run_format(path: Path, name: str | None = None) -> RunFormat:
    return _pick(run_formats(), name, Path(path), "prediction")
