#!/usr/bin/env python3
"""A minimal app backend that keeps its own login and adds passkeys through passkey-server's connect API.

It is the "your backend" half of docs/connect.md, small enough to read in one sitting:

- POST /login               {"username", "password"}          -> {"session"}          (the app's existing login)
- POST /passkeys/token      {"type"}   + X-Session header      -> {"token", "expiresAt"} (a connect token for the app)
- POST /passkeys/login      {"signedPasskeyData"}              -> {"session", "userId"} (a passkey sign-in)
- GET  /me                  X-Session header                   -> {"userId", "username"}

signedPasskeyData is checked twice, as a careful backend would: offline against the passkey server's JWKS
(signature, ES256 only, issuer, audience, expiry, and that it comes from a sign-in rather than a registration) with
joserfc, then online with POST /connect/verify, which also refuses a token that was already used. Only then does the
app start its own session.

Run:  PASSKEY_SERVER_URL=http://localhost:8080 PASSKEY_API_KEY=pks_... python3 backend.py --port 9000
Needs: pip install joserfc
"""
import argparse
import json
import os
import secrets
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

PASSKEY_SERVER = os.environ.get("PASSKEY_SERVER_URL", "http://localhost:8080").rstrip("/")
API_KEY = os.environ.get("PASSKEY_API_KEY", "")
AUDIENCE = os.environ.get("PASSKEY_AUDIENCE", "localhost")
# The server's --token-issuer; by default its first origin, which for a local server is its own URL.
ISSUER = os.environ.get("PASSKEY_ISSUER", PASSKEY_SERVER)

# The app's own accounts (a real app has a database and hashed passwords).
USERS = {"ann@example.com": {"id": "app-user-1", "password": "correct horse battery staple"}}
SESSIONS = {}
LOCK = threading.Lock()


def passkey_server(method, path, body=None):
    """Calls the passkey server with the backend's API key; returns (status, JSON)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(PASSKEY_SERVER + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + API_KEY)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


class JWKSCache:
    """The passkey server's public keys, refetched after five minutes or when a token names an unknown key."""

    def __init__(self):
        self.keys, self.fetched = None, 0.0

    def get(self, kid=None):
        stale = time.time() - self.fetched > 300
        known = self.keys is not None and any(k.get("kid") == kid for k in self.keys["keys"])
        if stale or not known:
            with urllib.request.urlopen(PASSKEY_SERVER + "/.well-known/jwks.json", timeout=10) as response:
                self.keys, self.fetched = json.loads(response.read()), time.time()
        return KeySet.import_key_set(self.keys)


JWKS = JWKSCache()


def verify_offline(token):
    """Signature (ES256 only: never "none" or HMAC), issuer, audience and expiry, against the JWKS. Returns the claims."""
    header = json.loads(_b64(token.split(".")[0]))
    decoded = jwt.decode(token, JWKS.get(header.get("kid")), algorithms=["ES256"])
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": ISSUER}, aud={"essential": True, "value": AUDIENCE}, exp={"essential": True},
        sub={"essential": True}).validate(decoded.claims)
    return decoded.claims


def _b64(part):
    import base64

    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet: tests read stdout
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return None

    def session_user(self):
        with LOCK:
            return SESSIONS.get(self.headers.get("X-Session", ""))

    def new_session(self, user_id):
        session = secrets.token_urlsafe(32)
        with LOCK:
            SESSIONS[session] = user_id
        return session

    def do_GET(self):
        if self.path == "/me":
            user_id = self.session_user()
            if user_id is None:
                return self.answer(401, {"error": "not_signed_in"})
            name = next((n for n, u in USERS.items() if u["id"] == user_id), None)
            return self.answer(200, {"userId": user_id, "username": name})
        self.answer(404, {"error": "not_found"})

    def do_POST(self):
        body = self.body()
        if not isinstance(body, dict):
            return self.answer(400, {"error": "json_malformed"})
        if self.path == "/login":
            user = USERS.get(str(body.get("username", "")).lower())
            if user is None or not secrets.compare_digest(user["password"], str(body.get("password", ""))):
                return self.answer(401, {"error": "bad_credentials"})
            return self.answer(200, {"session": self.new_session(user["id"])})
        if self.path == "/passkeys/token":
            user_id = self.session_user()
            if user_id is None:
                return self.answer(401, {"error": "not_signed_in"})
            name = next(n for n, u in USERS.items() if u["id"] == user_id)
            status, minted = passkey_server("POST", "/connect/tokens", {"type": body.get("type"), "user": {"id": user_id, "name": name}})
            return self.answer(status, minted)
        if self.path == "/passkeys/login":
            token = body.get("signedPasskeyData")
            if not isinstance(token, str):
                return self.answer(400, {"error": "signed_passkey_data_missing"})
            try:
                claims = verify_offline(token)
            except (JoseError, ValueError, KeyError) as error:
                return self.answer(401, {"error": "token_invalid", "detail": type(error).__name__})
            # A registration's token (from adding a passkey) is not a sign-in.
            if claims.get("ceremony") != "authentication":
                return self.answer(401, {"error": "not_a_sign_in"})
            status, verified = passkey_server("POST", "/connect/verify", {"signedPasskeyData": token})
            if status != 200 or not verified.get("success"):
                return self.answer(401, {"error": verified.get("error", "token_invalid")})
            user_id = verified.get("externalUserId")
            if user_id is None or user_id != claims.get("external_user_id"):
                return self.answer(401, {"error": "user_not_linked"})
            return self.answer(200, {"session": self.new_session(user_id), "userId": user_id, "amr": claims.get("amr")})
        self.answer(404, {"error": "not_found"})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=9000)
    args = parser.parse_args()
    if not API_KEY:
        sys.exit("set PASSKEY_API_KEY (passkey-server api-keys create --name backend)")
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"app backend on http://127.0.0.1:{args.port}, passkey server {PASSKEY_SERVER}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
