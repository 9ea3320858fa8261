extension XidError.Code {
  /// The provider's metadata (`/.well-known/openid-configuration`) could not be fetched or is not
  /// valid. Check the issuer URL; if it is right, the provider is down or misconfigured: try later.
  public static let discoveryFailed = Self(rawValue: "discoveryFailed")
  /// A different issuer answered than the one configured: the metadata's `issuer`, or the `iss`
  /// parameter of an authorization response (RFC 9207, mix-up defence), is not the configured issuer,
  /// or the `iss` parameter is missing although the provider promised it. Do not retry; if the
  /// configuration is wrong, fix the issuer URL (it must match the provider's exactly, trailing slash
  /// included).
  public static let issuerMismatch = Self(rawValue: "issuerMismatch")
  /// The client's configuration, or an option passed to a request, is invalid: an insecure redirect
  /// URI, an extra parameter that would override a security parameter, and the like. Fix the code.
  public static let invalidConfiguration = Self(rawValue: "invalidConfiguration")
  /// The provider lacks something the operation needs: an endpoint it does not advertise (UserInfo,
  /// revocation, end session, device authorization, pushed authorization requests), or PKCE with
  /// S256. Use another operation or another provider configuration.
  public static let unsupportedByProvider = Self(rawValue: "unsupportedByProvider")
  /// The redirect that reached the app is not the redirect URI of the authorization request (scheme,
  /// host, port and path must match exactly). Ignore it: it was not meant for this request.
  public static let redirectMismatch = Self(rawValue: "redirectMismatch")
  /// The redirect's `state` is missing or matches no pending authorization request: a stale, replayed
  /// or forged redirect. Ignore it and let the user start sign-in again.
  public static let stateMismatch = Self(rawValue: "stateMismatch")
  /// The authorization endpoint answered with an error (``XidError/oauthError`` holds its `error`,
  /// for example `access_denied` when the user declined). Let the user try again.
  public static let authorizationFailed = Self(rawValue: "authorizationFailed")
  /// The authorization response was malformed: no `code`, or a parameter given more than once.
  public static let invalidAuthorizationResponse = Self(rawValue: "invalidAuthorizationResponse")
  /// The pushed authorization request endpoint (RFC 9126) refused the request; ``XidError/httpStatus``
  /// and ``XidError/oauthError`` say how. Check the client's registration at the provider.
  public static let pushedAuthorizationFailed = Self(rawValue: "pushedAuthorizationFailed")
  /// The token endpoint refused a request; ``XidError/httpStatus`` and ``XidError/oauthError`` (when
  /// the provider sent one) say how. On a refresh, ``XidError/isInvalidGrant`` tells whether the grant
  /// is dead (sign the user in again) and ``XidError/isTransient`` whether to try again later.
  public static let tokenRequestFailed = Self(rawValue: "tokenRequestFailed")
  /// The token endpoint answered 2xx with a body that is not a valid token response: no
  /// `access_token`, an unknown `token_type`, a malformed member. The provider is misbehaving.
  public static let invalidTokenResponse = Self(rawValue: "invalidTokenResponse")
  /// The ID token failed validation (OpenID Connect Core 3.1.3.7, or 12.2 after a refresh): wrong
  /// issuer, audience, nonce, hash, a missing claim, expired or issued in the future. Do not use the
  /// tokens; if times are the problem, check the device clock.
  public static let invalidIDToken = Self(rawValue: "invalidIDToken")
  /// No key of the provider's JWK Set fits the ID token, even after fetching the set again (keys may
  /// be re-fetched at most once a minute). The provider may be rotating keys: try again in a minute.
  public static let unknownSigningKey = Self(rawValue: "unknownSigningKey")
  /// The provider's JWK Set (`jwks_uri`) could not be fetched or parsed. Try again later.
  public static let keySetUnavailable = Self(rawValue: "keySetUnavailable")
  /// The UserInfo endpoint refused the request; ``XidError/httpStatus`` and ``XidError/oauthError``
  /// (from `WWW-Authenticate`) say how. On `invalid_token`, refresh the access token and retry.
  public static let userInfoFailed = Self(rawValue: "userInfoFailed")
  /// The UserInfo response is about another user than the ID token (`sub` differs). Do not use it.
  public static let userInfoMismatch = Self(rawValue: "userInfoMismatch")
  /// A server answered in a form Xid does not support, for example a signed or encrypted UserInfo
  /// response (`application/jwt`). Configure the client at the provider for plain JSON responses.
  public static let unsupportedResponse = Self(rawValue: "unsupportedResponse")
  /// The revocation endpoint (RFC 7009) refused the request. Forget the token locally anyway.
  public static let revocationFailed = Self(rawValue: "revocationFailed")
  /// The device authorization endpoint (RFC 8628) refused to start a device flow; see
  /// ``XidError/oauthError``. Check that the client may use the device grant.
  public static let deviceAuthorizationFailed = Self(rawValue: "deviceAuthorizationFailed")
  /// The device code expired before the user approved the request (RFC 8628 `expired_token`, or its
  /// `expires_in` passed). Start a new device authorization.
  public static let deviceCodeExpired = Self(rawValue: "deviceCodeExpired")
  /// The user declined the device authorization request (RFC 8628 `access_denied`). Do not retry
  /// unless the user asks to.
  public static let accessDenied = Self(rawValue: "accessDenied")
  /// The operation was cancelled (its task was cancelled while it waited or polled). Nothing to do.
  public static let cancelled = Self(rawValue: "cancelled")
}

extension XidError {
  /// OAuth `error` codes that blame the request, the client or the server rather than the grant: a
  /// token endpoint failure with one of these does not mean the refresh token (or code) is dead.
  static let errorsNotAboutTheGrant: Set<String> = [
    "invalid_request", "invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
    "temporarily_unavailable", "server_error", "authorization_pending", "slow_down", "invalid_dpop_proof",
    "use_dpop_nonce",
  ]

  /// Whether a token endpoint failure means the grant itself is dead: the refresh token (or code) was
  /// revoked, expired or never valid, so retrying cannot help and the user must sign in again.
  ///
  /// True for ``Code/tokenRequestFailed`` with `invalid_grant`, and for a refused request (HTTP 400,
  /// 401 or 403, or a 200 carrying an `error` as some providers send) whose error is missing,
  /// unparseable or non-standard (`{"error":"invalid_code"}`, an empty 400), except the standard codes
  /// that blame the request or the client (`invalid_client`, `invalid_request`, …). A client
  /// misconfiguration is neither dead grant nor transient: surface it.
  public var isInvalidGrant: Bool {
    guard code == .tokenRequestFailed else { return false }
    if oauthError == "invalid_grant" { return true }
    guard let httpStatus, [200, 400, 401, 403].contains(httpStatus) else { return false }
    guard let oauthError else { return true }
    return !Self.errorsNotAboutTheGrant.contains(oauthError)
  }

  /// Whether the failure is temporary, so the same request may succeed later: no response arrived
  /// (``Code/networkFailure``), the server failed (HTTP 5xx), asked to slow down (HTTP 429), or said
  /// `temporarily_unavailable` or `server_error`. Keep the session and try again later.
  public var isTransient: Bool {
    if code == .networkFailure { return true }
    if let oauthError, oauthError == "temporarily_unavailable" || oauthError == "server_error" { return true }
    guard let httpStatus else { return false }
    return httpStatus >= 500 || httpStatus == 429 || httpStatus == 408
  }
}
