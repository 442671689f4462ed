"""A software passkey for the API tests: WebAuthn registration (``none`` attestation) and assertions with
a P-256 key, built byte by byte as an authenticator and a browser would (W3C WebAuthn level 2)."""

from __future__ import annotations

import hashlib
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from tests.web.pushservice import b64, unb64

UP, UV, AT = 0x01, 0x04, 0x40


@dataclass
class SoftKey:
    """One discoverable credential: its id, key pair, user handle and signature counter."""

    origin: str = "http://testserver"
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    ident: bytes = field(default_factory=lambda: os.urandom(16))
    handle: bytes = b""
    count: int = 0

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        data = {"type": kind, "challenge": challenge, "origin": origin or self.origin, "crossOrigin": False}
        return json.dumps(data).encode()

    def _cose(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return bytes(
            cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
        )

    def create(self, options: dict[str, Any], origin: str | None = None) -> dict[str, Any]:
        """``navigator.credentials.create`` for ``options`` (the server's JSON), as ``credential.toJSON()``."""
        self.handle = unb64(options["user"]["id"])
        rp_hash = hashlib.sha256(options["rp"]["id"].encode()).digest()
        attested = bytes(16) + struct.pack(">H", len(self.ident)) + self.ident + self._cose()
        auth_data = rp_hash + bytes([UP | UV | AT]) + struct.pack(">I", self.count) + attested
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client = self._client_data("webauthn.create", options["challenge"], origin)
        response = {"clientDataJSON": b64(client), "attestationObject": b64(attestation), "transports": ["internal"]}
        return {"id": b64(self.ident), "rawId": b64(self.ident), "type": "public-key", "response": response,
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}  # fmt: skip

    def get(self, options: dict[str, Any], origin: str | None = None, rp_id: str | None = None) -> dict[str, Any]:
        """``navigator.credentials.get`` for ``options``: a signed assertion (the counter moves on)."""
        self.count += 1
        rp_hash = hashlib.sha256((rp_id or options["rpId"]).encode()).digest()
        auth_data = rp_hash + bytes([UP | UV]) + struct.pack(">I", self.count)
        client = self._client_data("webauthn.get", options["challenge"], origin)
        signature = self.key.sign(auth_data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        response = {"clientDataJSON": b64(client), "authenticatorData": b64(auth_data), "signature": b64(signature),
                    "userHandle": b64(self.handle)}  # fmt: skip
        return {"id": b64(self.ident), "rawId": b64(self.ident), "type": "public-key", "response": response,
                "clientExtensionResults": {}, "authenticatorAttachment": "platform"}  # fmt: skip
