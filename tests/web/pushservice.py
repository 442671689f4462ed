"""A push service on loopback for the tests (RFC 8030): it checks the VAPID signature (RFC 8292) and
decrypts each message (RFC 8291, ``aes128gcm`` of RFC 8188) with its own code on ``cryptography``, not
with the sender's library, so a mistake shared by both ends cannot hide."""

from __future__ import annotations

import base64
import json
import os
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


@dataclass
class Device:
    """A browser's push subscription: its P-256 key pair and auth secret (what ``pushManager.subscribe`` makes)."""

    path: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))
    status: int = 201

    @property
    def public(self) -> bytes:
        return self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )

    def subscription(self, base: str) -> dict[str, Any]:
        return {"endpoint": base + self.path, "keys": {"p256dh": b64(self.public), "auth": b64(self.auth)}}

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 section 3.4 and RFC 8188 section 2: one record, padded with a 0x02 delimiter."""
        salt, rs, idlen = body[:16], struct.unpack(">I", body[16:20])[0], body[20]
        sender = body[21 : 21 + idlen]
        ciphertext = body[21 + idlen :]
        assert len(ciphertext) <= rs, "one record"
        shared = self.key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender))
        ikm = _hkdf(self.auth, shared, b"WebPush: info\x00" + self.public + sender, 32)
        cek = _hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
        nonce = _hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
        padded = AESGCM(cek).decrypt(nonce, ciphertext, None)
        data = padded.rstrip(b"\x00")
        assert data.endswith(b"\x02"), "the last record's delimiter"
        return data[:-1]


@dataclass
class Delivery:
    """One message the service took: its device, headers, VAPID claims and decrypted payload."""

    path: str
    headers: dict[str, str]
    claims: dict[str, Any]
    vapid_key: str
    payload: dict[str, Any]


def verify_vapid(authorization: str) -> tuple[dict[str, Any], str]:
    """RFC 8292: ``vapid t=<JWT ES256>, k=<public key>``; returns the claims and the key (raises if forged)."""
    scheme, _, rest = authorization.partition(" ")
    assert scheme == "vapid", authorization
    parts = dict(p.strip().split("=", 1) for p in rest.split(","))
    token, key = parts["t"], parts["k"]
    head, claims, signature = token.split(".")
    assert json.loads(unb64(head)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID signature does not verify") from None
    return json.loads(unb64(claims)), key


class PushService:
    """``http://127.0.0.1:PORT/push/<device>``: takes encrypted messages, answers each device's ``status``."""

    def __init__(self) -> None:
        self.devices: dict[str, Device] = {}
        self.deliveries: list[Delivery] = []
        self.refused: list[str] = []
        self.changed = threading.Condition()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length)
                device = service.devices.get(self.path)
                if device is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                try:
                    assert self.headers["content-encoding"] == "aes128gcm"
                    claims, key = verify_vapid(self.headers["authorization"])
                    payload = json.loads(device.decrypt(body))
                except Exception as exc:
                    with service.changed:
                        service.refused.append(f"{type(exc).__name__}: {exc}")
                        service.changed.notify_all()
                    self.send_response(400)
                    self.end_headers()
                    return
                with service.changed:
                    if device.status < 300:
                        headers = {k.lower(): v for k, v in self.headers.items()}
                        service.deliveries.append(Delivery(self.path, headers, claims, key, payload))
                    service.changed.notify_all()
                self.send_response(device.status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> PushService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def device(self, name: str) -> Device:
        found = self.devices[f"/push/{name}"] = Device(f"/push/{name}")
        return found

    def wait(self, count: int, timeout: float = 20.0) -> list[Delivery]:
        """Wait until ``count`` messages in all were delivered (or refused: then fail with the reason)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while len(self.deliveries) < count and not self.refused:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.deliveries)} of {count} push messages arrived"
                self.changed.wait(left)
            assert not self.refused, self.refused
            return list(self.deliveries)
