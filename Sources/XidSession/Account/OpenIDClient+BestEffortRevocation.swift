extension OpenIDClient {
  /// Revokes `token` (with a proof of `dpopKey`, for a bound one), best effort: when the provider
  /// does not (some refuse revocation from public clients; glewlwyd answers 401; some have no
  /// revocation endpoint), the log says so with the error's code or the reason, never the token.
  ///
  /// - Parameters:
  ///   - category: the log category ("sign-out").
  ///   - what: the token, for the log line ("a dropped refresh token").
  /// - Returns: what became of the token.
  @discardableResult
  func revokeBestEffort(
    _ token: String, hint: TokenTypeHint, dpopKey: (any DPoPKey)? = nil, category: String, naming what: String
  ) async -> RevocationOutcome {
    let outcome = await revokeReportingOutcome([(token, hint)], dpopKey: dpopKey)
    switch outcome {
    case .revoked:
      break
    case .notRevocable(let reason):
      configuration.parts.logger.log(.notice, category: category, "\(what) was not revoked: \(reason)")
    case .failed(let error):
      configuration.parts.logger.log(.notice, category: category, "the provider did not revoke \(what): \(error.code)")
    }
    return outcome
  }
}
