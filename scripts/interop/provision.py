#!/usr/bin/env python3
"""Provision the glewlwyd started by start.sh through its admin REST API (Python standard library only).

Idempotent (every object is created or replaced): the OIDC plugin "oidc" with the ES256 + RS256 signing
keys, the public clients xid-es256, xid-rs256, xid-dpop and xid-rar (one RAR type and one resource,
RFC 9396 and RFC 8707), the confidential client xid-pkjwt (private_key_jwt with a key made here), the
user alice with consent granted to all of them (and to xid-rar's RAR type), then the env files the
tests read. Env: XID_IDP_BASE, XID_IDP_DATA_DIR, XID_IDP_EXTRA_REDIRECT_URIS,
XID_IDP_EXTRA_POST_LOGOUT_URIS, XID_IDP_SHORT_ACCESS_TOKEN_DURATION.

A second instance of the plugin, "oidc-short" (issuer $BASE/api/oidc-short), is the same provider with
access tokens that live only XID_IDP_SHORT_ACCESS_TOKEN_DURATION seconds (default 5), for tests that need
many expiries in a short run. glewlwyd sets the duration per plugin instance, not per client; both
instances serve the same clients, user and consent.

A third instance, "oidc-dpop" (issuer $BASE/api/oidc-dpop), demands server-provided DPoP nonces (RFC 9449
section 8): glewlwyd switches nonces on per plugin instance. Its client xid-dpop must send a DPoP proof with
every token request (client property dpop_bound_access_tokens), so its access and refresh tokens are always
bound to the proof's key. glewlwyd keeps one nonce per client and rotates it after DPOP_NONCE_COUNTER
successful DPoP requests of that client; its DPoP-protected resource is /userinfo.
"""
import base64
import http.cookiejar
import json
import os
import shlex
import subprocess
import sys
import urllib.error
import urllib.request

BASE = os.environ["XID_IDP_BASE"]
DATA = os.environ["XID_IDP_DATA_DIR"]
ISSUER = BASE + "/api/oidc"
SHORT_ISSUER = BASE + "/api/oidc-short"
SHORT_DURATION = int(os.environ.get("XID_IDP_SHORT_ACCESS_TOKEN_DURATION") or 5)
DPOP_ISSUER = BASE + "/api/oidc-dpop"
DPOP_NONCE_COUNTER = 10  # successful DPoP requests of a client before glewlwyd hands out a new nonce
ADMIN = ("admin", "password")  # created by glewlwyd's schema script
USER = ("alice", "alice-password-1")
SCOPES = ["openid", "profile", "email", "offline_access"]
# Redirect URIs are compared as exact strings (no RFC 8252 any-port loopback): register each one.
# Port 8765 is the fixed loopback listener of the real-browser test.
REDIRECT_URIS = ["http://127.0.0.1:8765/callback", "http://127.0.0.1/callback"]
REDIRECT_URIS += os.environ.get("XID_IDP_EXTRA_REDIRECT_URIS", "").split()
# The RAR type and the resource the OIDC instances serve (RFC 9396, RFC 8707), for the client xid-rar.
RAR_TYPE = "payment_initiation"
RESOURCE = "https://payments.xid.test/"
POST_LOGOUT_URIS = ["http://127.0.0.1:8765/logout"] + os.environ.get("XID_IDP_EXTRA_POST_LOGOUT_URIS", "").split()


# --- signing keys: PEM (made by openssl in start.sh) -> private JWK, via a tiny DER reader ---------------
def der(buf):
    """The (tag, value) items of a DER byte string."""
    items, i = [], 0
    while i < len(buf):
        tag, n = buf[i], buf[i + 1]
        i += 2
        if n & 0x80:
            k = n & 0x7F
            n, i = int.from_bytes(buf[i:i + k], "big"), i + k
        items.append((tag, buf[i:i + n]))
        i += n
    return items


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def openssl_der(*args):
    return subprocess.run(["openssl", *args, "-outform", "DER"], check=True, capture_output=True).stdout


def ec_jwk(pem, kid):
    # SEC1 ECPrivateKey: SEQUENCE { version, OCTET STRING d, [0] curve, [1] BIT STRING 00 04 x y }
    _, d, _, pub = der(der(openssl_der("ec", "-in", pem))[0][1])
    point = der(pub[1])[0][1][1:]
    assert point[0] == 4 and len(point) == 65, "expected an uncompressed P-256 point"
    return {"kty": "EC", "crv": "P-256", "x": b64u(point[1:33]), "y": b64u(point[33:]),
            "d": b64u(d[1].rjust(32, b"\0")), "kid": kid, "alg": "ES256", "use": "sig"}


def rsa_jwk(pem, kid):
    # PKCS#1 RSAPrivateKey: SEQUENCE { version, n, e, d, p, q, dp, dq, qi } (INTEGERs, maybe 00-padded)
    ints = [v.lstrip(b"\0") for _, v in der(der(openssl_der("rsa", "-traditional", "-in", pem))[0][1])][1:]
    jwk = {"kty": "RSA", **{k: b64u(v) for k, v in zip(("n", "e", "d", "p", "q", "dp", "dq", "qi"), ints)}}
    return {**jwk, "kid": kid, "alg": "RS256", "use": "sig"}


JWKS = {"keys": [ec_jwk(f"{DATA}/es256.pem", "es256-1"), rsa_jwk(f"{DATA}/rs256.pem", "rs256-1")]}

# The key of the confidential client xid-pkjwt (private_key_jwt, RFC 7523): its public half is the
# client's jwks, its private JWK goes to the tests through env.json.
if not os.path.exists(f"{DATA}/client-es256.pem"):
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-out", f"{DATA}/client-es256.pem"], check=True, capture_output=True)
CLIENT_JWK = ec_jwk(f"{DATA}/client-es256.pem", "xid-pkjwt-1")
CLIENT_PUBLIC_JWK = {k: v for k, v in CLIENT_JWK.items() if k != "d"}


# --- admin API ------------------------------------------------------------------------------------------
class Session:
    """A cookie session with glewlwyd's REST API."""

    def __init__(self, username, password):
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.call("POST", "/auth/", {"username": username, "password": password})

    def call(self, method, path, body=None, ok=(200,)):
        req = urllib.request.Request(BASE + "/api" + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={} if body is None else {"Content-Type": "application/json"})
        try:
            with self.opener.open(req, timeout=10) as r:
                status, text = r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode()
        if status not in ok:
            sys.exit(f"[interop/provision] {method} {path} -> HTTP {status} {text[:500]}")
        return status, (json.loads(text) if text.strip()[:1] in ("{", "[") else None)

    def put_or_post(self, collection, name, body):
        """Replace the object collection/name, or create it."""
        status, _ = self.call("GET", f"{collection}/{name}", ok=(200, 404))
        if status == 200:
            self.call("PUT", f"{collection}/{name}", body)
        else:
            self.call("POST", f"{collection}/", body)
        return status == 200


admin = Session(*ADMIN)

# The database client backend silently drops client properties missing from its data-format. Add the ones the
# OIDC plugin reads here; end_session reads post_logout_redirect_uris (plural, an array). A reset applies it.
_, mod = admin.call("GET", "/mod/client/database")
fmt = mod["parameters"]["data-format"]
client_properties = {"sign_kid": False, "dpop_bound_access_tokens": False, "post_logout_redirect_uris": True}
if any(name not in fmt for name in client_properties):
    for name, multiple in client_properties.items():
        fmt[name] = {"multiple": multiple, "read": True, "write": True}
    admin.call("PUT", "/mod/client/database", {k: mod[k] for k in ("module", "name", "display_name", "order_rank",
                                                                   "readonly", "parameters")})
    admin.call("PUT", "/mod/client/database/reset")

for scope in SCOPES[1:]:  # openid exists already
    admin.put_or_post("/scope", scope, {"name": scope, "display_name": scope, "description": scope,
                                        "password_required": True, "password_max_age": 0, "scheme": {}})

# g_profile lets the user grant consent (PUT /api/auth/grant/...).
admin.put_or_post("/user", USER[0], {"username": USER[0], "password": USER[1], "name": "Alice Example",
                                     "email": "alice@example.com", "enabled": True, "scope": ["g_profile"] + SCOPES})

def oidc_plugin(name, issuer, access_token_duration, dpop_nonces=False):
    return {"module": "oidc", "name": name, "display_name": "OpenID Connect", "enabled": True, "parameters": {
    "iss": issuer, "oauth-as-iss-id": True,  # iss in authorization responses (RFC 9207)
    "jwks-private": json.dumps(JWKS), "default-kid": "es256-1", "client-sign_kid-parameter": "sign_kid",
    "jwks-show": True, "allowed-scope": SCOPES,
    "access-token-duration": access_token_duration, "refresh-token-duration": 1209600, "code-duration": 600,
    "refresh-token-rolling": True,
    "refresh-token-one-use": "always",        # rotation on every refresh; reusing a rotated token revokes the chain
    "auth-type-code-enabled": True, "auth-type-code-revoke-replayed": True,  # a replayed code revokes its tokens
    "auth-type-refresh-enabled": True, "auth-type-device-enabled": True,
    "auth-type-token-enabled": False, "auth-type-password-enabled": False, "auth-type-client-enabled": False,
    "pkce-allowed": True, "pkce-required-public-client": True, "pkce-method-plain-allowed": False,
    "device-authorization-expiration": 600, "device-authorization-interval": 1,
    "introspection-revocation-allowed": True, "introspection-revocation-allow-target-client": True,
    "session-management-allowed": True,       # end_session, sid
    # login.html's end-session page asks GET /api/oidc/session/{sid}/{client_id}, which answers 400 unless
    # front-channel logout is allowed; the page then never goes on to the post-logout redirect URI.
    "front-channel-logout-allowed": True,
    "session-cookie-name": "GLEWLWYD2_OIDC_SID", "session-cookie-expiration": 2419200,
    "oauth-dpop-allowed": True, "oauth-dpop-iat-duration": 60,  # DPoP and PAR allowed, not required
    "oauth-dpop-iat-gap-duration": 0,         # a proof whose iat is ahead of the server's clock is refused
    # a client whose property dpop_bound_access_tokens is "true" must send a proof with every token request
    "oauth-dpop-dpop_bound_access_tokens-property": "dpop_bound_access_tokens",
    "oauth-dpop-nonce-mandatory": dpop_nonces, "oauth-dpop-nonce-counter": DPOP_NONCE_COUNTER,
    "oauth-par-allowed": True, "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:",
    "name-claim": "on-demand", "name-claim-scope": ["profile"],
    "email-claim": "on-demand", "email-claim-scope": ["email"],
    # Rich authorization requests (RFC 9396): one type, for the clients whose property
    # authorization_details_types names it; plain (unsigned) authorization_details in the URL or PAR.
    "oauth-rar-allowed": True, "rar-types-client-property": "authorization_details_types",
    "rar-allow-auth-unsigned": True, "rar-allow-auth-unencrypted": True,
    "rar-types": {RAR_TYPE: {"scopes": ["openid"], "locations": [RESOURCE], "actions": ["initiate", "status"],
                             "description": "A payment of the integration tests"}},
    # private_key_jwt (RFC 7523): a client's keys in its property jwks; glewlwyd checks client
    # assertions only where request objects are allowed, and wants aud to be the endpoint's URL.
    "request-parameter-allow": True, "client-jwks-parameter": "jwks", "request-maximum-exp": 3600,
    # Resource indicators (RFC 8707): RESOURCE for the openid scope, or a client's property resource.
    "resource-allowed": True, "resource-client-property": "resource",
    "resource-scope": {"openid": [RESOURCE]}, "resource-scope-and-client-property": False,
    }}


for name, issuer, duration, nonces in (("oidc", ISSUER, 3600, False), ("oidc-short", SHORT_ISSUER, SHORT_DURATION, False),
                                      ("oidc-dpop", DPOP_ISSUER, 3600, True)):
    if admin.put_or_post("/mod/plugin", name, oidc_plugin(name, issuer, duration, nonces)):
        admin.call("PUT", f"/mod/plugin/{name}/reset")

clients = {
    "xid-es256": {},
    "xid-rs256": {"sign_kid": "rs256-1"},  # sign_kid picks the RS256 key for that client
    "xid-dpop": {"dpop_bound_access_tokens": "true"},  # a string: glewlwyd reads "true", not a JSON boolean
    "xid-rar": {"authorization_details_types": [RAR_TYPE], "resource": [RESOURCE]},
    "xid-pkjwt": {"confidential": True, "token_endpoint_auth_method": ["private_key_jwt"],
                  "jwks": {"keys": [CLIENT_PUBLIC_JWK]}},
}
for client_id, extra in clients.items():
    admin.put_or_post("/client", client_id, {
        "client_id": client_id, "name": client_id, "enabled": True, "confidential": False,
        "token_endpoint_auth_method": ["none"], "redirect_uri": REDIRECT_URIS,
        "post_logout_redirect_uris": POST_LOGOUT_URIS,
        "authorization_type": ["code", "refresh_token", "device_authorization", "delete_token"], **extra})

# Consent pre-granted: a login (API or login.html) then leads straight back to the redirect URI.
alice = Session(*USER)
for client_id in clients:  # scope list is space separated (the docs say comma: wrong)
    alice.call("PUT", f"/auth/grant/{client_id}/", {"scope": " ".join(SCOPES)})
# RAR needs the user's consent per client and type as well (PUT /api/{plugin}/rar/{client}/{type}/1).
alice.call("PUT", f"/oidc/rar/xid-rar/{RAR_TYPE}/1")

# --- env files for the tests ---------------------------------------------------------------------------
env = {
    "XID_IDP_ISSUER": ISSUER, "XID_IDP_BASE_URL": BASE, "XID_IDP_PORT": BASE.rsplit(":", 1)[1],
    "XID_IDP_CLIENT_ID_ES256": "xid-es256", "XID_IDP_CLIENT_ID_RS256": "xid-rs256",
    "XID_IDP_USERNAME": USER[0], "XID_IDP_PASSWORD": USER[1],
    "XID_IDP_REDIRECT_URI": REDIRECT_URIS[1], "XID_IDP_BROWSER_REDIRECT_URI": REDIRECT_URIS[0],
    "XID_IDP_POST_LOGOUT_REDIRECT_URI": POST_LOGOUT_URIS[0],
    "XID_IDP_SHORT_ISSUER": SHORT_ISSUER, "XID_IDP_SHORT_ACCESS_TOKEN_DURATION": str(SHORT_DURATION),
    "XID_IDP_DPOP_ISSUER": DPOP_ISSUER, "XID_IDP_CLIENT_ID_DPOP": "xid-dpop",
    "XID_IDP_DPOP_NONCE_COUNTER": str(DPOP_NONCE_COUNTER),
    "XID_IDP_CLIENT_ID_RAR": "xid-rar", "XID_IDP_RAR_TYPE": RAR_TYPE, "XID_IDP_RESOURCE": RESOURCE,
    "XID_IDP_CLIENT_ID_PKJWT": "xid-pkjwt", "XID_IDP_CLIENT_JWK": json.dumps(CLIENT_JWK),
    "XID_IDP_ADMIN_USERNAME": ADMIN[0], "XID_IDP_ADMIN_PASSWORD": ADMIN[1], "XID_IDP_DATA_DIR": DATA,
}
with open(f"{DATA}/env", "w") as f:
    f.writelines(f"export {k}={shlex.quote(v)}\n" for k, v in env.items())
with open(f"{DATA}/env.json", "w") as f:
    json.dump(env, f, indent=1)
