#!/usr/bin/env python3
"""An application signing in through passkey-server as an OpenID Provider, with OpenID Connect libraries we did not
write: Authlib (a confidential or a public client with PKCE) or pyoidc (`oic`). Used by
Tests/PasskeyEndToEndTests/OpenIDBrowserTests.swift, and an example of what any OIDC client does (docs/oidc.md).

    python3 oidc_client.py --library authlib --issuer http://localhost:8080 --client-id oc_... [--client-secret ocs_...]

It prints one JSON line {"authorize": URL}: open it in a browser and sign in with a passkey. The browser comes back to
http://127.0.0.1:<port>/callback, where this program listens; it exchanges the code, verifies the ID token with the
library's own JOSE code against the provider's discovery document and JWKS, calls userinfo, refreshes, and prints one
JSON line {"result": {...}} (or {"error": "..."} and exits 1).
"""
import argparse
import base64
import http.server
import json
import os
import sys
import threading
import urllib.parse
import warnings

import requests

warnings.filterwarnings("ignore")  # authlib.jose announces its move to joserfc
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # the test's issuer is http://localhost


def say(value):
    print(json.dumps(value), flush=True)


class Callback(http.server.BaseHTTPRequestHandler):
    """Receives the browser's return to the redirect URI, once."""

    received = None
    done = threading.Event()

    def do_GET(self):
        # Only the redirect URI: the browser also asks this server for /favicon.ico once the page is shown.
        if not self.path.startswith("/callback") or Callback.done.is_set():
            self.send_response(404)
            self.end_headers()
            return
        Callback.received = self.path
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(b"<!doctype html><title>Signed in</title><p id='done'>Signed in</p>")
        Callback.done.set()

    def log_message(self, *args):
        pass


def wait_for_callback(server, timeout):
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    if not Callback.done.wait(timeout):
        raise RuntimeError("the browser did not come back to the redirect URI")
    server.shutdown()
    return Callback.received


def authlib_flow(args, redirect, server):
    from authlib.common.security import generate_token
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.jose import JsonWebKey, jwt
    from authlib.oidc.core import CodeIDToken

    meta = requests.get(args.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert meta["issuer"] == args.issuer, meta
    session = OAuth2Session(
        args.client_id, args.client_secret, scope="openid profile email offline_access", redirect_uri=redirect,
        code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic" if args.client_secret else "none")
    verifier, nonce = generate_token(48), generate_token(20)
    url, state = session.create_authorization_url(meta["authorization_endpoint"], nonce=nonce, code_verifier=verifier)
    say({"authorize": url})
    path = wait_for_callback(server, args.timeout)
    callback = urllib.parse.urlparse(path)
    query = dict(urllib.parse.parse_qsl(callback.query))
    if "error" in query:
        raise RuntimeError(f"authorization refused: {query}")
    assert query.get("iss") == meta["issuer"], f"RFC 9207 iss: {query}"
    token = session.fetch_token(
        meta["token_endpoint"], authorization_response=redirect + "?" + callback.query, code_verifier=verifier, state=state)

    jwks = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())

    def verify(id_token, access_token, expected_nonce):
        claims = jwt.decode(
            id_token, jwks, claims_cls=CodeIDToken, claims_options={"iss": {"essential": True, "value": meta["issuer"]}},
            claims_params={"nonce": expected_nonce, "client_id": args.client_id, "access_token": access_token})
        claims.validate(leeway=5)
        return claims

    claims = verify(token["id_token"], token["access_token"], nonce)
    encoded = token["id_token"].split(".")[0]
    header = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    userinfo = session.get(meta["userinfo_endpoint"], timeout=10).json()
    assert userinfo["sub"] == claims["sub"], userinfo

    refreshed = session.refresh_token(meta["token_endpoint"], refresh_token=token["refresh_token"])
    refreshed_claims = verify(refreshed["id_token"], refreshed["access_token"], None)
    assert refreshed["refresh_token"] != token["refresh_token"], "the refresh token is rotated"
    # The first refresh token again: it was used, so it is refused and its whole family revoked.
    auth = (args.client_id, args.client_secret) if args.client_secret else None
    form = {"grant_type": "refresh_token", "refresh_token": token["refresh_token"]}
    if not args.client_secret:
        form["client_id"] = args.client_id
    replay = requests.post(meta["token_endpoint"], data=form, auth=auth, timeout=10)
    after = requests.get(meta["userinfo_endpoint"], headers={"authorization": "Bearer " + refreshed["access_token"]}, timeout=10)
    return {
        "alg": header["alg"], "sub": claims["sub"], "aud": claims["aud"], "nonce": claims["nonce"], "amr": claims["amr"],
        "acr": claims["acr"], "auth_time": claims["auth_time"], "userinfo": userinfo, "scope": token["scope"],
        "refreshed_sub": refreshed_claims["sub"], "replay_status": replay.status_code, "replay_error": replay.json().get("error"),
        "after_replay_status": after.status_code,
    }


def pyoidc_flow(args, redirect, server):
    from oic import rndstr
    from oic.oic import Client
    from oic.oic.message import AuthorizationResponse, OpenIDSchema, RegistrationResponse
    from oic.utils.authn.client import CLIENT_AUTHN_METHOD

    client = Client(client_authn_method=CLIENT_AUTHN_METHOD)
    config = client.provider_config(args.issuer)  # discovery, checked against the issuer, and the JWKS loaded
    client.store_registration_info(
        RegistrationResponse(client_id=args.client_id, client_secret=args.client_secret, redirect_uris=[redirect]))
    client.redirect_uris = [redirect]
    state, nonce = rndstr(), rndstr()
    challenge, verifier = client.add_code_challenge()
    request_args = {"response_type": "code", "scope": ["openid", "profile", "email"], "nonce": nonce, "redirect_uri": redirect,
                    "state": state, **challenge}
    url = client.construct_AuthorizationRequest(request_args=request_args).request(client.authorization_endpoint)
    say({"authorize": url})
    path = wait_for_callback(server, args.timeout)
    query = urllib.parse.urlparse(path).query
    response = client.parse_response(AuthorizationResponse, info=query, sformat="urlencoded")
    assert response["state"] == state
    token = client.do_access_token_request(
        state=state, request_args={"code": response["code"], "redirect_uri": redirect, "code_verifier": verifier},
        authn_method="client_secret_basic")
    id_token = token["id_token"]  # signature, issuer, audience and expiry verified by pyoidc against the JWKS
    assert id_token["nonce"] == nonce, id_token.to_dict()
    userinfo = client.do_user_info_request(state=state)
    assert isinstance(userinfo, OpenIDSchema) and userinfo["sub"] == id_token["sub"], userinfo
    return {
        "alg": id_token.jws_header["alg"] if getattr(id_token, "jws_header", None) else None,
        "sub": id_token["sub"], "aud": id_token["aud"], "nonce": id_token["nonce"], "issuer": config["issuer"],
        "userinfo": userinfo.to_dict(),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", choices=["authlib", "pyoidc"], required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret")
    parser.add_argument("--port", type=int, default=0, help="the redirect URI's port (default: any free one)")
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    server = http.server.HTTPServer(("127.0.0.1", args.port), Callback)
    redirect = f"http://127.0.0.1:{server.server_address[1]}/callback"
    try:
        flow = authlib_flow if args.library == "authlib" else pyoidc_flow
        say({"result": flow(args, redirect, server)})
    except Exception as error:  # reported to the test, which shows it
        say({"error": f"{type(error).__name__}: {error}"})
        sys.exit(1)


if __name__ == "__main__":
    main()
