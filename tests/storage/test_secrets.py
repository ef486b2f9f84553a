from __future__ import annotations

import pytest
from cryptography.fernet import Fernet

from storage import InstallationRecord, SecretBox, Storage, rotate_secrets
from storage.errors import InvalidSecretKeyError, MissingSecretKeyError, SecretDecryptError
from storage.secrets import secret_columns
from tests.storage.conftest import raw


def _new_key() -> str:
    return Fernet.generate_key().decode()


def test_without_a_key_storage_refuses_and_says_how_to_make_one() -> None:
    with pytest.raises(MissingSecretKeyError) as caught:
        SecretBox.from_settings([])
    assert "CALLOPS_SECRET_KEY" in str(caught.value)
    assert "Fernet.generate_key().decode()" in str(caught.value)


def test_demo_mode_gets_a_working_temporary_key() -> None:
    box = SecretBox.from_settings([], demo=True)
    assert box.decrypt(box.encrypt("hello")) == "hello"


def test_a_malformed_key_is_refused_without_echoing_it() -> None:
    bad = "not-a-fernet-key-but-close-enough-to-a-secret"
    with pytest.raises(InvalidSecretKeyError) as caught:
        SecretBox([_new_key(), bad])
    assert "entry 2" in str(caught.value)
    assert bad not in str(caught.value)


def test_ciphertext_hides_the_plaintext_and_the_box_never_shows_keys() -> None:
    key = _new_key()
    box = SecretBox([key])
    token = box.encrypt("demo-api-key")
    assert "demo-api-key" not in token
    assert box.decrypt(token) == "demo-api-key"
    assert key not in repr(box)


def test_a_secret_opened_before_is_opened_alike_and_a_forged_one_never() -> None:
    box = SecretBox([Fernet.generate_key().decode()])
    sealed = box.encrypt("sk-live-123")
    assert box.decrypt(sealed) == box.decrypt(sealed) == "sk-live-123"
    forged = sealed[:-6] + ("A" if sealed[-6] != "A" else "B") + sealed[-5:]
    for _ in range(2):  # refused each time: a failure is not remembered as an answer
        with pytest.raises(SecretDecryptError):
            box.decrypt(forged)
    other = SecretBox([Fernet.generate_key().decode()])
    with pytest.raises(SecretDecryptError):  # another box's keys do not open it
        other.decrypt(sealed)


def test_every_secret_column_is_encrypted_at_rest(store: Storage) -> None:
    store.workspaces.connect("T1", "http://127.0.0.1:9", "api-key-plain")
    [(sealed,)] = raw(store.db, "SELECT api_key_enc FROM workspaces")
    assert sealed != "api-key-plain"
    assert store.box.decrypt(sealed) == "api-key-plain"
    assert store.db.read(secret_columns) == {
        "workspaces": ["api_key_enc"],
        "service_tokens": ["token_enc"],
        "approvals": ["params_enc"],
        "approval_secrets": ["secret_enc", "prompt_url_enc"],
        "slack_installations": [
            "bot_token_enc",
            "bot_refresh_token_enc",
            "user_token_enc",
            "user_refresh_token_enc",
            "incoming_webhook_url_enc",
        ],
        "callback_tokens": ["token_enc"],
        "callback_queue": ["payload_enc"],
        "step_runs": ["token_enc"],
        "call_folds": ["records_enc"],
        "privacy_posts": ["phone_enc"],
        "privacy_requests": ["phone_enc"],
    }


def _fill(store: Storage) -> None:
    store.workspaces.connect("T1", "http://127.0.0.1:9", "api-key-plain")
    store.workspaces.save_cached_token("T1", "service-token", 2e9)
    store.approvals.create("T1", "user.update", {"password": "pw"}, "U1")
    store.installations.save(
        InstallationRecord(user_id="U1", team_id="T1", bot_token="xoxb-1", user_token="xoxp-1")
    )
    store.callback_tokens.rotate("T1")


def test_rotation_moves_every_secret_to_the_new_key(db_url: str) -> None:
    old, new = _new_key(), _new_key()
    with Storage.open(db_url, SecretBox([old])) as store:
        _fill(store)
        callback_token = store.callback_tokens.get("T1")

    # Before rotation: the new key leads, and the old key still decrypts everything.
    with Storage.open(db_url, SecretBox([new, old])) as store:
        assert store.workspaces.api_key("T1") == "api-key-plain"
        assert store.rotate_secrets() == 6

    # After rotation the new key alone reads everything; the old key alone reads nothing.
    with Storage.open(db_url, SecretBox([new])) as store:
        assert store.workspaces.api_key("T1") == "api-key-plain"
        cached = store.workspaces.cached_token("T1")
        assert cached is not None and cached.token == "service-token"
        assert store.approvals.list("T1")[0].params == {"password": "pw"}
        found = store.installations.find(enterprise_id=None, team_id="T1")
        assert found is not None and found.bot_token == "xoxb-1"
        assert store.callback_tokens.get("T1") == callback_token

    with Storage.open(db_url, SecretBox([old])) as store:
        with pytest.raises(SecretDecryptError):
            store.workspaces.api_key("T1")
        with pytest.raises(SecretDecryptError):
            store.callback_tokens.get("T1")
        # An unreadable cached token is a cache miss, not a crash.
        assert store.workspaces.cached_token("T1") is None


def test_rotation_is_all_or_nothing(db_url: str) -> None:
    first, second, third = _new_key(), _new_key(), _new_key()
    with Storage.open(db_url, SecretBox([first])) as store:
        store.workspaces.connect("T1", "http://127.0.0.1:9", "key-one")
    with Storage.open(db_url, SecretBox([second])) as store:
        store.workspaces.connect("T2", "http://127.0.0.1:9", "key-two")

    # This box cannot read T1's key (encrypted under `first`), so nothing may change.
    with Storage.open(db_url, SecretBox([third, second])) as store:
        before = raw(store.db, "SELECT api_key_enc FROM workspaces ORDER BY team_id")
        with pytest.raises(SecretDecryptError):
            rotate_secrets(store.db, store.box)
        after = raw(store.db, "SELECT api_key_enc FROM workspaces ORDER BY team_id")
        assert len(after) == 2 and after == before
