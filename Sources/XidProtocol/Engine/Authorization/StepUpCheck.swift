extension PendingAuthorization {
  /// Whether this request is a step-up of a signed-in user (it names what the ID token must show).
  package var isStepUp: Bool { requiredSubject != nil || requiredACRValues != nil }

  /// Why the ID token of this step-up cannot replace the session's, or `nil` when it can: it must be
  /// about the session's user, and its `acr` one of those asked for. (`auth_time` against `max_age`
  /// is the validator's, as for any sign-in.)
  func stepUpRefusal(of idToken: IDToken) -> String? {
    if let subject = requiredSubject, !SafeText.constantTimeEquals(idToken.subject, subject) {
      return "the step-up signed in another user than the session's (the ID token's sub differs)"
    }
    if let values = requiredACRValues, !values.isEmpty {
      let asked = values.prefix(8).map { "\"\($0.prefix(64))\"" }.joined(separator: ", ")
      guard let acr = idToken.claims.authenticationContextClass else {
        return "the step-up's ID token has no acr claim; it was asked for one of \(asked)"
      }
      guard values.contains(acr) else {
        return
          "the step-up's ID token has acr \"\(SafeText.sanitize(String(acr.prefix(64))))\", not one of those asked for (\(asked))"
      }
    }
    return nil
  }
}
