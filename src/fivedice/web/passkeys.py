"""Passkeys (WebAuthn, with py_webauthn): sign up, sign in, and add a passkey to a signed-in account.

=========================================  ==========================================================
``POST /api/passkeys/register/options``    ``{"name"}`` for a new account (nothing when signed in: a
                                           passkey added to the account): ``{"ceremony", "options"}``
``POST /api/passkeys/register``            ``{"ceremony", "credential"}``: 201 and the session cookie
                                           (a new account), or 200 (a passkey added)
``POST /api/passkeys/login/options``       ``{"ceremony", "options"}`` for a discoverable passkey
``POST /api/passkeys/login``               ``{"ceremony", "credential"}``: 200 and the cookie, or 401
``GET  /api/me/passkeys``                  the account's passkeys; ``DELETE /api/me/passkeys/{id}``
=========================================  ==========================================================

``options`` is the JSON the browser's ``PublicKeyCredential.parseCreationOptionsFromJSON`` (or
``parseRequestOptionsFromJSON``) takes; ``credential`` is the browser's ``credential.toJSON()``. Each
challenge is kept in the database for five minutes and answered once (any process may verify it). The
relying party is the site's host (``--origin``, else the request's ``Host``): passkeys need a secure
context, so the site is served over https (``localhost`` counts as secure for trying it out). Attestation
is not asked for (``none``): a passkey proves the same person comes back, not which device they use.

py_webauthn (with cryptography, pyOpenSSL and pyasn1 under it) takes a good part of a second to import:
the first passkey request imports it in a worker thread, so that neither a server's start nor its event
loop pays for it.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request, Response

from fivedice.i18n import _
from fivedice.web.account_models import Ceremony, NewPasskey, PasskeyAnswer, PasskeyOut, PasskeyRemoved, Passkeys
from fivedice.web.accounts_db import NameTakenError
from fivedice.web.auth import AccountError, ConflictingError, SignInError, allowed_origins, host_of
from fivedice.web.guard import client_address

if TYPE_CHECKING:
    from fivedice.web.accounts import Accounts

__all__ = ["CEREMONY_TTL", "router"]

CEREMONY_TTL = 300.0
RP_NAME = "fivedice"
WEBAUTHN = ("webauthn", "webauthn.helpers", "webauthn.helpers.exceptions", "webauthn.helpers.structs")
"""The modules of py_webauthn the routes use, imported by :func:`_load_webauthn`."""
_loaded: list[bool] = []


async def _load_webauthn() -> None:
    """Import :data:`WEBAUTHN` in a worker thread, once; afterwards the routes' own imports of it are lookups."""
    if not _loaded:
        await asyncio.to_thread(lambda: [importlib.import_module(name) for name in WEBAUTHN])
        _loaded.append(True)


def router(accounts: Accounts) -> APIRouter:
    """The routes of the module's docstring."""
    api = APIRouter()
    auth, store, db = accounts.auth, accounts.store, accounts.db

    def origins(request: Request) -> tuple[list[str], str]:
        found = list(allowed_origins(request, accounts.settings))
        return found, host_of(found[0])

    @api.post("/api/passkeys/register/options")
    async def register_options(request: Request, body: NewPasskey) -> Ceremony:
        auth.count_ceremony(client_address(request.scope))
        await _load_webauthn()
        from webauthn import base64url_to_bytes, generate_registration_options, options_to_json
        from webauthn.helpers import bytes_to_base64url
        from webauthn.helpers.structs import (
            AuthenticatorSelectionCriteria,
            PublicKeyCredentialDescriptor,
            ResidentKeyRequirement,
            UserVerificationRequirement,
        )

        account = await auth.account(request)
        _origins, rp_id = origins(request)
        now = accounts.service.clock()
        if account is None:
            if body.name is None:
                raise AccountError(_("A new account needs a name; give one, or sign in to add a passkey."))
            if await db(store.by_name, body.name) is not None:
                raise ConflictingError(_("Name {name!r} is taken; choose another.", name=body.name))
            await auth.count_signup(client_address(request.scope))
            import secrets

            name, handle, exclude = body.name, secrets.token_urlsafe(32), []
        else:
            name, handle = account.name, account.handle
            exclude = [
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(k["id"]))
                for k in await db(store.passkeys_of, account.id)
            ]
        options = generate_registration_options(
            rp_id=rp_id,
            rp_name=RP_NAME,
            user_name=name,
            user_id=handle.encode(),
            user_display_name=name,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=exclude,
        )
        ceremony = await db(
            store.add_ceremony,
            "register",
            bytes_to_base64url(options.challenge),
            expires=now + CEREMONY_TTL,
            account=None if account is None else account.id,
            name=name,
            handle=handle,
        )
        return Ceremony(ceremony=ceremony, options=_json(options_to_json(options)))

    @api.post("/api/passkeys/register")
    async def register(request: Request, response: Response, body: PasskeyAnswer) -> Any:
        await _load_webauthn()
        from webauthn import base64url_to_bytes, verify_registration_response
        from webauthn.helpers import bytes_to_base64url
        from webauthn.helpers.exceptions import InvalidRegistrationResponse

        now = accounts.service.clock()
        found = await db(store.take_ceremony, body.ceremony, "register", now=now)
        if found is None:
            raise AccountError(_("That passkey request has expired or was used; start again."))
        expected, rp_id = origins(request)
        try:
            verified = verify_registration_response(
                credential=body.credential.model_dump(),
                expected_challenge=base64url_to_bytes(found["challenge"]),
                expected_rp_id=rp_id,
                expected_origin=expected,
            )
        except (InvalidRegistrationResponse, ValueError, KeyError, TypeError) as exc:
            raise AccountError(
                _("The passkey could not be verified ({reason}); nothing was saved.", reason=_short(exc))
            ) from None
        ident = bytes_to_base64url(verified.credential_id)
        if await db(store.passkey, ident) is not None:
            raise ConflictingError(_("This passkey is already registered; sign in with it."))
        transports = ",".join(
            str(t) for t in (body.credential.model_dump().get("response") or {}).get("transports") or []
        )
        public_key = bytes_to_base64url(verified.credential_public_key)
        if found["account"] is not None:
            current = await auth.account(request)
            if current is None or current.id != found["account"]:
                raise SignInError(_("Sign in to the account before adding a passkey to it."))
            await db(store.add_passkey, current.id, ident, public_key, verified.sign_count, transports[:200], now)
            response.status_code = 200
            return await accounts.me(current)
        try:
            account = await db(store.create, found["name"], None, now=now, handle=found["handle"])
        except NameTakenError:
            raise ConflictingError(_("Name {name!r} is taken; choose another.", name=found["name"])) from None
        await db(store.add_passkey, account.id, ident, public_key, verified.sign_count, transports[:200], now)
        await auth.sign_in(request, response, account)
        response.status_code = 201
        return await accounts.me(account)

    @api.post("/api/passkeys/login/options")
    async def login_options(request: Request) -> Ceremony:
        auth.count_ceremony(client_address(request.scope))
        await _load_webauthn()
        from webauthn import generate_authentication_options, options_to_json
        from webauthn.helpers import bytes_to_base64url
        from webauthn.helpers.structs import UserVerificationRequirement

        _origins, rp_id = origins(request)
        options = generate_authentication_options(rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED)
        ceremony = await db(
            store.add_ceremony,
            "login",
            bytes_to_base64url(options.challenge),
            expires=accounts.service.clock() + CEREMONY_TTL,
        )
        return Ceremony(ceremony=ceremony, options=_json(options_to_json(options)))

    @api.post("/api/passkeys/login")
    async def login(request: Request, response: Response, body: PasskeyAnswer) -> Any:
        await _load_webauthn()
        from webauthn import base64url_to_bytes, verify_authentication_response
        from webauthn.helpers.exceptions import InvalidAuthenticationResponse

        address = client_address(request.scope)
        await auth.check_signin(None, address)
        now = accounts.service.clock()
        found = await db(store.take_ceremony, body.ceremony, "login", now=now)
        if found is None:
            raise AccountError(_("That passkey request has expired or was used; start again."))
        key = await db(store.passkey, body.credential.id)
        account = await db(store.by_id, key["account"]) if key is not None else None
        expected, rp_id = origins(request)

        async def refuse() -> SignInError:
            await auth.failed_signin(None, address)
            return SignInError(_("That passkey does not sign in to an account here."))

        if key is None or account is None:
            raise await refuse()
        try:
            verified = verify_authentication_response(
                credential=body.credential.model_dump(),
                expected_challenge=base64url_to_bytes(found["challenge"]),
                expected_rp_id=rp_id,
                expected_origin=expected,
                credential_public_key=base64url_to_bytes(key["public_key"]),
                credential_current_sign_count=key["sign_count"],
            )
        except (InvalidAuthenticationResponse, ValueError, KeyError, TypeError):
            raise await refuse() from None
        await db(store.used_passkey, key["id"], verified.new_sign_count, now)
        await auth.sign_in(request, response, account)
        return await accounts.me(account)

    @api.get("/api/me/passkeys")
    async def my_passkeys(request: Request) -> Passkeys:
        account, _session = await auth.require(request)
        keys = await db(store.passkeys_of, account.id)
        return Passkeys(passkeys=[PasskeyOut(id=k["id"], created=k["created"], used=k["used"]) for k in keys])

    @api.delete("/api/me/passkeys/{ident}")
    async def drop_passkey(request: Request, ident: str) -> PasskeyRemoved:
        account, _session = await auth.require(request)
        keys = await db(store.passkeys_of, account.id)
        if account.password is None and len(keys) <= 1:
            raise AccountError(_("This is the account's only way to sign in; set a password or add a passkey first."))
        if not await db(store.delete_passkey, account.id, ident[:400]):
            raise AccountError(_("The account has no passkey {id!r}.", id=ident[:40]))
        return PasskeyRemoved(removed=ident[:400])

    return api


def _json(text: str) -> Any:
    import json

    return json.loads(text)


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:120].rstrip(".")
