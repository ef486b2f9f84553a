"""Write the demo console's emoji table, ``emulators/slack/console/emoji.json``, from the
data Slack's own shortcodes come from.

    .venv/bin/python scripts/emoji_table.py          # needs npm and the npm registry

Slack names its emoji after iamcal/emoji-data (``:white_check_mark:``, ``:1234:``,
``:large_green_circle:``, ``:heavy_multiplication_x:``: not always the Unicode CLDR
names), published on npm as ``emoji-datasource`` (MIT). This fetches the pinned version
with ``npm pack``, checks it against the pinned digest, and writes every short name with
the character it stands for (its fully-qualified sequence), the source and the licence.
To move to a newer release, change ``VERSION`` and ``INTEGRITY`` (``npm view
emoji-datasource@<version> dist.integrity``) and run it again.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

PACKAGE = "emoji-datasource"
VERSION = "16.0.0"
INTEGRITY = "sha512-/qHKqK5Nr3+8zhgO6kHmF43Fm5C8HNn0AaFRIpgw8HF3+uF0Vfc8jgLI1ZQS5ba1vBzksS8NBCjHejwLb2D/Sg=="  # noqa: E501
"""npm's ``dist.integrity`` of that version: the downloaded tarball must hash to it."""
TABLE = Path(__file__).resolve().parents[1] / "emulators" / "slack" / "console" / "emoji.json"


def fetch(workdir: Path) -> Path:
    """The package's tarball, by npm (the registry's own client), checked against INTEGRITY."""
    subprocess.run(
        ["npm", "pack", "--silent", f"{PACKAGE}@{VERSION}"],
        cwd=workdir,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    tarball = workdir / f"{PACKAGE}-{VERSION}.tgz"
    digest = base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    if f"sha512-{digest}" != INTEGRITY:
        raise SystemExit(f"{tarball.name} does not match the pinned digest {INTEGRITY}")
    return tarball


def member(tarball: Path, name: str) -> bytes:
    with tarfile.open(tarball) as archive:
        extracted = archive.extractfile(f"package/{name}")
        if extracted is None:
            raise SystemExit(f"{tarball.name} has no {name}")
        return extracted.read()


def character(unified: str) -> str:
    """``"0023-FE0F-20E3"`` -> ``"#️⃣"``."""
    return "".join(chr(int(code, 16)) for code in unified.split("-"))


def shortcodes(entries: list[dict[str, Any]]) -> dict[str, str]:
    """Every short name (aliases too: ``+1`` and ``thumbsup``) -> its character."""
    table: dict[str, str] = {}
    for entry in entries:
        for name in entry["short_names"]:
            if name in table:
                raise SystemExit(f"{PACKAGE} names two emoji :{name}:")
            table[name] = character(entry["unified"])
    return dict(sorted(table.items()))


def build(tarball: Path) -> dict[str, Any]:
    entries = json.loads(member(tarball, "emoji.json"))
    return {
        "source": f"npm {PACKAGE}@{VERSION} (github.com/iamcal/emoji-data), its emoji.json",
        "generated_by": "scripts/emoji_table.py; do not edit by hand",
        "license": member(tarball, "LICENSE").decode(),
        "emoji": shortcodes(entries),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=TABLE)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="emoji-table-") as workdir:
        table = build(fetch(Path(workdir)))
    text = json.dumps(table, ensure_ascii=False, indent=0)
    args.out.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {len(table['emoji'])} shortcodes from {PACKAGE}@{VERSION} to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
