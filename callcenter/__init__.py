"""Typed async client of the call-center service (spec: shared/spec/...-interface.md).

Public surface: ``CallCenter``, the token cache protocol (``CachedToken``,
``TokenCache``) and ``callcenter.errors``; the wire models are in
``callcenter.models``.
"""

from callcenter import errors
from callcenter.client import CallCenter
from callcenter.tokens import CachedToken, TokenCache

__all__ = ["CachedToken", "CallCenter", "TokenCache", "errors"]
