extension HTTPResponse {
  /// What the resource server asks of the user's authentication, when this response is a step-up
  /// challenge (RFC 9470 §3): a 401 with a `Bearer` or `DPoP` challenge whose `error` is
  /// `insufficient_user_authentication`; otherwise `nil`.
  ///
  /// `acr_values` is read as a space-separated list. A `max_age` that is not a whole number of seconds
  /// is read as zero, the strictest reading: an authentication now satisfies any limit the server
  /// meant.
  public var stepUpRequirement: StepUpRequirement? {
    guard status == 401 else { return nil }
    let challenge = AuthenticationChallenge.challenges(in: self).first {
      ($0.scheme == "bearer" || $0.scheme == "dpop") && $0["error"] == "insufficient_user_authentication"
    }
    return challenge.map(StepUpRequirement.init(challenge:))
  }

  /// The ``XidError/Code/stepUpRequired`` error for a step-up challenge (see ``stepUpRequirement``),
  /// with the requirement in ``XidError/stepUp``; `nil` for any other response. `send` throws it; apps
  /// that call their APIs themselves turn their responses into the same error with it.
  public var stepUpError: XidError? {
    guard let requirement = stepUpRequirement else { return nil }
    return XidError(
      .stepUpRequired, "the resource server asks for \(requirement) (RFC 9470)" + XidError.stepUpAdvice,
      httpStatus: status, oauthError: "insufficient_user_authentication", stepUp: requirement)
  }
}

extension XidError {
  /// What a ``Code/stepUpRequired`` reason tells an app to do; a command line says it its own way.
  package static let stepUpAdvice = "; sign the same user in again with SignInOptions(stepUp:), then repeat the request"
}

extension StepUpRequirement {
  /// The requirement of an `insufficient_user_authentication` challenge.
  init(challenge: AuthenticationChallenge) {
    var seen = Set<String>()
    let acrValues = (challenge["acr_values"] ?? "").split(separator: " ").map(String.init).filter {
      seen.insert($0).inserted
    }
    let maxAge = challenge["max_age"].map { text -> Duration in
      guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let seconds = Int64(text)
      else { return .zero }
      return .seconds(seconds)
    }
    self.init(acrValues: acrValues, maxAge: maxAge)
  }
}
