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
