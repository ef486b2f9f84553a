"""Slack's request signature (v0), computed with slack_sdk's own implementation so the
stand-in signs exactly what ``SignatureVerifier`` and Bolt check."""

from __future__ import annotations

import time

from slack_sdk.signature import SignatureVerifier


def signed_headers(
    secret: str,
    body: str,
    *,
    skew: float = 0.0,
    corrupt: bool = False,
    timestamp: int | None = None,
) -> dict[str, str]:
    """``X-Slack-Request-Timestamp`` and ``X-Slack-Signature`` for ``body``.

    ``skew`` dates the request that many seconds in the past (Bolt refuses more than
    5 minutes), unless ``timestamp`` gives the exact second; ``corrupt`` signs with the
    wrong secret, as a forger would.
    """
    stamp = str(timestamp if timestamp is not None else int(time.time() - skew))
    key = secret + "-forged" if corrupt else secret
    signature = SignatureVerifier(key).generate_signature(timestamp=stamp, body=body)
    if signature is None:
        raise ValueError("cannot sign without a timestamp")
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature}
