"""Slack's request signature (v0), computed with slack_sdk's own implementation so the
stand-in signs exactly what ``SignatureVerifier`` and Bolt check."""

from __future__ import annotations

import time

from slack_sdk.signature import SignatureVerifier


def signed_headers(
    secret: str, body: str, *, skew: float = 0.0, corrupt: bool = False
) -> dict[str, str]:
    """``X-Slack-Request-Timestamp`` and ``X-Slack-Signature`` for ``body``.

    ``skew`` dates the request that many seconds in the past (Bolt refuses more than
    5 minutes); ``corrupt`` signs with the wrong secret, as a forger would.
    """
    timestamp = str(int(time.time() - skew))
    key = secret + "-forged" if corrupt else secret
    signature = SignatureVerifier(key).generate_signature(timestamp=timestamp, body=body)
    if signature is None:
        raise ValueError("cannot sign without a timestamp")
    return {"X-Slack-Request-Timestamp": timestamp, "X-Slack-Signature": signature}
