"""Keep the Vietnamese catalog in step with the code: extract, update, fill, compile.

``python scripts/catalog.py`` extracts every marked string (``babel.cfg``) into
``commands/locales/callops.pot``, updates ``vi/LC_MESSAGES/callops.po`` from it (new
messages empty, gone ones dropped), fills empty translations from any ``.po`` given
with ``--fragments DIR`` (translations written elsewhere, merged here), and compiles
the ``.mo``.  ``--check`` changes nothing and exits 1 when a message in the code has
no Vietnamese translation (the test of the catalogs runs the same check).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "commands" / "locales"
POT = LOCALES / "callops.pot"
PO = LOCALES / "vi" / "LC_MESSAGES" / "callops.po"


def pybabel(*args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "-q", *args], cwd=ROOT, check=True
    )


def extract(target: Path) -> Catalog:
    pybabel(
        "extract",
        "-F",
        "babel.cfg",
        "--no-location",
        "--sort-output",
        "--omit-header",
        "-c",
        "Translators:",
        "-o",
        str(target),
        ".",
    )
    with target.open("rb") as fp:
        return read_po(fp)


def translated(strings: object) -> bool:
    """Whether a message's translation is there (every plural form of it)."""
    if isinstance(strings, tuple | list):
        return bool(strings) and all(strings)
    return bool(strings)


def untranslated(po: Catalog, pot: Catalog) -> list[str]:
    """Messages of the code that ``po`` lacks or leaves empty."""
    missing = []
    for message in pot:
        if not message.id:
            continue
        found = po.get(message.id, message.context)
        if found is None or not translated(found.string):
            missing.append(message.id if isinstance(message.id, str) else message.id[0])
    return missing


def fill(po: Catalog, fragments: Path) -> int:
    filled = 0
    for path in sorted(fragments.glob("*.po")):
        with path.open("rb") as fp:
            fragment = read_po(fp, locale="vi")
        for message in fragment:
            if not message.id or not message.string:
                continue
            target = po.get(message.id, message.context)
            if target is not None and not translated(target.string):
                target.string = message.string
                filled += 1
    return filled


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fragments", type=Path, help="folder of .po files to fill from")
    parser.add_argument("--check", action="store_true", help="only report untranslated")
    args = parser.parse_args()
    if args.check:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            pot = extract(Path(tmp) / "callops.pot")
        with PO.open("rb") as fp:
            po = read_po(fp, locale="vi")
        missing = untranslated(po, pot)
        for message_id in missing:
            print(f"untranslated: {message_id!r}")
        return 1 if missing else 0
    extract(POT)
    if PO.exists():
        pybabel(
            "update",
            "-i",
            str(POT),
            "-d",
            str(LOCALES),
            "-D",
            "callops",
            "-l",
            "vi",
            "--no-fuzzy-matching",
            "--omit-header",
        )
    else:
        pybabel("init", "-i", str(POT), "-d", str(LOCALES), "-D", "callops", "-l", "vi")
    with PO.open("rb") as fp:
        po = read_po(fp, locale="vi")
    if args.fragments:
        print(f"filled {fill(po, args.fragments)} translations from {args.fragments}")
    po.fuzzy = False  # a new catalog's header is fuzzy, and pybabel would not compile it
    po.project, po.version = "callops", "0.1.0"
    with PO.open("wb") as fp:
        write_po(fp, po, omit_header=False, sort_output=True, include_lineno=False)
    pybabel("compile", "-d", str(LOCALES), "-D", "callops", "--statistics")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
