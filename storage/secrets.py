"""Secrets at rest: Fernet with a key list, so keys can be rotated without downtime.

`CALLOPS_SECRET_KEY` holds one key, or several separated by commas, newest first: the first
encrypts, all of them decrypt. Rotation is: put a new key in front, run
`callops secrets rotate` (every secret re-encrypted under the new key in one transaction),
then drop the old key.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from sqlalchemy import and_, column, inspect, select, table, update
from sqlalchemy.engine import Connection

from storage.errors import (
    InvalidSecretKeyError,
    MissingSecretKeyError,
    SecretDecryptError,
    StorageError,
)
from storage.migrations import SECRET_SUFFIX

if TYPE_CHECKING:
    from storage.database import Database

log = logging.getLogger(__name__)

RECENT_SECRETS = 256
"""Decrypted secrets a box remembers (see `SecretBox.decrypt`)."""

MAKE_KEY_HINT = (
    'make one with: python -c "from cryptography.fernet import Fernet; '
    'print(Fernet.generate_key().decode())"'
)


class SecretBox:
    """Encrypts and decrypts text under the configured keys; never logs or reprs a secret."""

    def __init__(self, keys: Sequence[str]) -> None:
        if not keys:
            raise MissingSecretKeyError(
                "CALLOPS_SECRET_KEY is not set: callops encrypts API keys and tokens at rest "
                f"and will not store them without a key; {MAKE_KEY_HINT}"
            )
        fernets: list[Fernet] = []
        for position, key in enumerate(keys, start=1):
            try:
                fernets.append(Fernet(key.strip().encode()))
            except (ValueError, TypeError):
                # The key itself is never echoed: a mistyped key is still mostly a key.
                raise InvalidSecretKeyError(
                    f"CALLOPS_SECRET_KEY entry {position} is not a Fernet key "
                    f"(32 url-safe base64-encoded bytes); {MAKE_KEY_HINT}"
                ) from None
        self._multi = MultiFernet(fernets)
        self._count = len(fernets)
        self._hash_key = hmac.new(
            keys[0].strip().encode(), b"callops keyed hash of personal data", hashlib.sha256
        ).digest()
        self._recent = functools.lru_cache(maxsize=RECENT_SECRETS)(self._decrypt)

    @classmethod
    def from_settings(cls, keys: Sequence[str], *, demo: bool = False) -> SecretBox:
        """The box for this process: refuses to run without a key unless in demo mode.

        Demo mode gets a key that lives as long as the process, which is right for the demo's
        throw-away database and wrong for anything else (secrets become unreadable on restart).
        """
        if not keys and demo:
            log.warning("demo mode: secrets are encrypted with a temporary key for this run only")
            return cls([Fernet.generate_key().decode()])
        return cls(keys)

    @property
    def key_count(self) -> int:
        return self._count

    def encrypt(self, plaintext: str) -> str:
        return self._multi.encrypt(plaintext.encode()).decode("ascii")

    def decrypt(self, ciphertext: str) -> str:
        """The plaintext of ``ciphertext``; raises `SecretDecryptError` when no key opens it.

        The last `RECENT_SECRETS` answers are remembered: every request reads its
        workspace's API key (and, for an installable app, its bot token), and opening a
        Fernet token (an HMAC check, then AES) on every request is work for nothing.  A
        token opens to the same text for as long as this box
        has the same keys, so the answer cannot go stale; a failure is not remembered.
        The texts stay in this process's memory, where the clients built from them are."""
        return self._recent(ciphertext)

    def _decrypt(self, ciphertext: str) -> str:
        try:
            return self._multi.decrypt(ciphertext.encode("ascii")).decode()
        except (InvalidToken, UnicodeError):
            raise SecretDecryptError(
                "a stored secret cannot be decrypted with any key in CALLOPS_SECRET_KEY; "
                "was the key that encrypted it removed before `callops secrets rotate`?"
            ) from None

    def rotate(self, ciphertext: str) -> str:
        """Re-encrypt under the first key (whichever key encrypted it before)."""
        try:
            return self._multi.rotate(ciphertext.encode("ascii")).decode("ascii")
        except (InvalidToken, UnicodeError):
            raise SecretDecryptError(
                "a stored secret cannot be decrypted with any key in CALLOPS_SECRET_KEY, so it "
                "cannot be rotated; nothing was changed"
            ) from None

    def keyed_hash(self, value: str) -> str:
        """A keyed hash (HMAC-SHA256) of ``value``: the same value always gives the same
        hash under the same first key, so a customer's number can be found and matched
        again where only its hash is kept, and nobody without the key can test a guess.
        The key is derived from the first (newest) key of ``CALLOPS_SECRET_KEY``: rotating
        keys makes new hashes, so the old key stays in the list for as long as the hashes
        made under it must be found."""
        return hmac.new(self._hash_key, value.encode(), hashlib.sha256).hexdigest()

    def __repr__(self) -> str:
        return f"SecretBox(<{self._count} key(s)>)"


def secret_columns(conn: Connection) -> dict[str, list[str]]:
    """Every table's encrypted columns, found in the database itself by the ``_enc`` naming
    rule of the schema (so a column added by a later migration is never missed)."""
    inspector = inspect(conn)
    found: dict[str, list[str]] = {}
    for name in sorted(inspector.get_table_names()):
        columns = [
            str(c["name"])
            for c in inspector.get_columns(name)
            if str(c["name"]).endswith(SECRET_SUFFIX)
        ]
        if columns:
            found[name] = columns
    return found


def _rotate_all(conn: Connection, box: SecretBox) -> int:
    inspector = inspect(conn)
    rotated = 0
    for name, columns in secret_columns(conn).items():
        keys = [str(k) for k in inspector.get_pk_constraint(name)["constrained_columns"]]
        if not keys:
            raise StorageError(f"table {name} has secrets but no primary key to update them by")
        target = table(name, *(column(c) for c in [*keys, *columns]))
        for row in conn.execute(select(target)).mappings().all():
            values = {c: row[c] for c in columns}
            rotated += sum(v is not None for v in values.values())
            conn.execute(
                update(target)
                .where(and_(*(target.c[k] == row[k] for k in keys)))
                .values({c: None if v is None else box.rotate(v) for c, v in values.items()})
            )
    return rotated


def rotate_secrets(db: Database, box: SecretBox) -> int:
    """Re-encrypt every stored secret under the box's first key, all or nothing.

    Returns how many values were re-encrypted. If any value cannot be decrypted the
    transaction rolls back and SecretDecryptError says so.
    """
    rotated = db.write(lambda conn: _rotate_all(conn, box))
    log.info("re-encrypted %d stored secrets under the first key", rotated)
    return rotated
