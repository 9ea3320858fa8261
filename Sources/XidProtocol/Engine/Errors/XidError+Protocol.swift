extension XidError {
  /// Whether a token endpoint failure means the grant itself is dead: the refresh token (or code) was
  /// revoked, expired or never valid, so retrying cannot help and the user must sign in again.
  ///
  /// Only a parsed OAuth error says so: ``Code/tokenRequestFailed`` with `invalid_grant`, or
  /// ``Code/refreshRefused`` (an `invalid_grant`, or the equivalent a ``ProviderQuirks`` option
  /// accepts). An HTML page from a gateway, an empty 401 or 403, a proxy's 400 page or a non-standard
  /// error code prove nothing about the grant: keep the session.
  public var isInvalidGrant: Bool {
    code == .refreshRefused || (code == .tokenRequestFailed && oauthError == "invalid_grant")
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
