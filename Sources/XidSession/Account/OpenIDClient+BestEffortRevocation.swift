extension OpenIDClient {
  /// Revokes `token` (with a proof of `dpopKey`, for a bound one), best effort: when the provider
  /// does not (some refuse revocation from public clients; glewlwyd answers 401), the log says so
  /// with the error's code, never the token.
  ///
  /// - Parameters:
  ///   - category: the log category ("sign-out").
  ///   - what: the token, for the log line ("a dropped refresh token").
  /// - Returns: whether the provider revoked it.
  @discardableResult
  func revokeBestEffort(
    _ token: String, hint: TokenTypeHint, dpopKey: (any DPoPKey)? = nil, category: String, naming what: String
  ) async -> Bool {
    do {
      try await revoke(token, hint: hint, dpopKey: dpopKey)
      return true
    } catch let error as XidError {
      configuration.parts.logger.log(.notice, category: category, "the provider did not revoke \(what): \(error.code)")
    } catch {
      configuration.parts.logger.log(.notice, category: category, "the provider did not revoke \(what)")
    }
    return false
  }
}
