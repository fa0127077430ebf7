"""A state's encrypted secrets, read as the engine reads them for a program (SPEC 8): a stack whose secrets provider is
the passphrase one, and whose passphrase the environment gives (PULUMI_CONFIG_PASSPHRASE or
PULUMI_CONFIG_PASSPHRASE_FILE, as the CLI takes it), has its secrets decrypted: AES-256-GCM under a key derived from
the passphrase and the state's salt by 1,000,000 rounds of PBKDF2-SHA256 (pulumi pkg/secrets/passphrase/manager.go,
sdk/go/common/resource/config/crypt.go). Any other secrets provider (Pulumi Cloud, a cloud KMS), no passphrase, or no
``cryptography`` installed: the secret is not known, as the test kit says of it.

Only the test kit's program side reads them (an unchanged resource's deployed outputs, as a preview gives them to the
program); the pack reads an encrypted secret as not known, as it does under the engine (SPEC 5).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROUNDS = 1_000_000  # PBKDF2 rounds of the passphrase secrets manager (config.NewSymmetricCrypterFromPassphrase)


def decrypter(deployment: Mapping[str, Any]) -> Callable[[str], str | None]:
    """What decrypts a ciphertext of this state (None where it cannot)."""
    providers = deployment.get("secrets_providers")
    state = providers.get("state") if isinstance(providers, Mapping) and providers.get("type") == "passphrase" \
        else None
    salt_state = state.get("salt") if isinstance(state, Mapping) else None
    phrase = _passphrase()
    if not isinstance(salt_state, str) or phrase is None:
        return lambda ciphertext: None
    parts = salt_state.split(":", 2)
    if len(parts) != 3 or parts[0] != "v1":
        return lambda ciphertext: None
    try:
        key = _key(phrase, base64.b64decode(parts[1]))
    except ValueError:
        return lambda ciphertext: None
    if _open(key, parts[2]) != "pulumi":  # the state's check of the passphrase
        return lambda ciphertext: None
    return lambda ciphertext: _open(key, ciphertext)


def _passphrase() -> str | None:
    phrase = os.environ.get("PULUMI_CONFIG_PASSPHRASE")
    if phrase is not None:
        return phrase
    file = os.environ.get("PULUMI_CONFIG_PASSPHRASE_FILE")
    if file:
        try:
            return Path(file).read_text()
        except OSError:
            return None
    return None


@functools.lru_cache(maxsize=8)
def _key(phrase: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", phrase.encode(), salt, ROUNDS, 32)


def _open(key: bytes, value: str) -> str | None:
    """A `v1:<nonce>:<ciphertext>` value opened with the key (None: not this key's, or no AES-GCM here)."""
    try:
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        return None
    parts = value.split(":")
    if len(parts) != 3 or parts[0] != "v1":
        return None
    try:
        return AESGCM(key).decrypt(base64.b64decode(parts[1]), base64.b64decode(parts[2]), None).decode()
    except (InvalidTag, ValueError):
        return None


__all__ = ["decrypter"]
