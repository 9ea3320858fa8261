import Foundation
import XidCore

// What a test changes and reads between requests.
extension TestProvider {
  // MARK: The user

  /// Replaces the user at the login page. Tokens already issued keep the user they were issued for.
  public func setUser(_ user: TestUser) { self.user = user }

  /// Changes what the user does at the authorization endpoint and the device verification page.
  public func setUserBehavior(_ behavior: TestUser.Behavior) { user.behavior = behavior }

  /// Ends the user's sign-in at the provider, as logging out does: the next authorization signs
  /// them in again (a new `auth_time` and `sid`), and `prompt=none` fails with `login_required`.
  public func endUserSession() { session = nil }

  /// Decides a pending device authorization, as the user would on the verification page.
  ///
  /// - Parameters:
  ///   - userCode: the `user_code`, compared case-insensitively and ignoring separators.
  ///   - approved: whether the user approves (the default) or denies.
  /// - Returns: whether a pending device authorization had that user code.
  @discardableResult
  public func completeDeviceAuthorization(userCode: String, approved: Bool = true) -> Bool {
    guard let deviceCode = store.deviceCode(forUserCode: userCode),
      case .pending = store.deviceCodes[deviceCode]?.status
    else { return false }
    decideDevice(deviceCode, approved: approved, now: clock.now)
    return true
  }

  // MARK: Configuration and keys

  /// Changes the configuration. Lifetimes apply to what is issued afterwards; a new
  /// ``Configuration/signingAlgorithm`` applies from the next ``rotateSigningKey(to:keepingPrevious:)``.
  public func updateConfiguration(_ update: @Sendable (inout Configuration) -> Void) {
    update(&configuration)
    precondition(Set(configuration.clients.map(\.id)).count == configuration.clients.count, "client IDs must be unique")
  }

  /// The `kid` of the key that signs ID tokens now.
  public var signingKeyID: String { keys.current.keyID }

  /// The `kid`s the JWKS publishes, the current key's first.
  public var publishedKeyIDs: [String] { keys.published.map(\.keyID) }

  /// Makes a new signing key current; the next ID token names its new `kid`.
  ///
  /// - Parameters:
  ///   - algorithm: the new key's algorithm; by default ``Configuration/signingAlgorithm``.
  ///   - keepingPrevious: whether the previous keys stay in the JWKS; by default
  ///     ``Configuration/keepsPreviousKeysOnRotation``.
  /// - Returns: the new key's `kid`.
  /// - Throws: ``/Xid/XidError`` with ``/Xid/XidError/Code/cryptoFailure`` when no key could be generated.
  @discardableResult
  public func rotateSigningKey(to algorithm: JWSAlgorithm? = nil, keepingPrevious: Bool? = nil) throws -> String {
    try keys.rotate(
      to: algorithm ?? configuration.signingAlgorithm,
      keepingPrevious: keepingPrevious ?? configuration.keepsPreviousKeysOnRotation)
    return keys.current.keyID
  }

  // MARK: Hostile modes and faults

  /// Turns on a hostile mode for the next response it applies to, a number of them, or all of them.
  ///
  /// ``Misbehavior/missingKeyID`` and ``Misbehavior/missingKeyIDWithSeveralKeys`` change the JWKS at
  /// once (to the current key alone, or with a decoy key added).
  ///
  /// - Throws: ``/Xid/XidError`` with ``/Xid/XidError/Code/cryptoFailure`` when a decoy key could not be made.
  public func misbehave(_ misbehavior: Misbehavior, _ repetition: Repetition = .always) throws {
    switch misbehavior {
    case .missingKeyID: keys.publishOnlyCurrent()
    case .missingKeyIDWithSeveralKeys: try keys.publishDecoyIfAlone()
    default: break
    }
    misbehaviors.add(misbehavior, repetition)
  }

  /// Turns every hostile mode off. Key changes they made stay.
  public func behave() { misbehaviors.removeAll() }

  /// Makes the next `times` requests to `endpoint` fail with `fault`, after any faults already
  /// queued there.
  public func injectFault(_ fault: Fault, at endpoint: Endpoint, times: Int = 1) {
    faults[endpoint, default: []] += Array(repeating: fault, count: max(0, times))
  }

  /// Removes every queued fault.
  public func clearFaults() { faults.removeAll() }

  // MARK: Observation

  /// Sets every counter back to zero.
  public func resetCounters() { counters = Counters() }
}

extension TestProvider {
  /// Every secret the provider handed out or received: authorization codes, access, refresh and ID
  /// tokens, device codes, device secrets (Native SSO), and the PKCE verifiers clients sent. Tests use it to prove that none of
  /// them reached a log line, an error or a `description`.
  public var issuedSecrets: [String] {
    Array(store.codes.keys) + Array(store.accessTokens.keys) + Array(store.refreshTokens.keys)
      + Array(store.deviceCodes.keys) + store.issuedIDTokens + store.issuedDeviceSecrets
      + Array(store.receivedVerifiers)
      + dpopState.receivedProofs
  }

  /// The refresh tokens issued to `subject`, oldest first, whether still valid or not.
  public func refreshTokens(issuedTo subject: String) -> [String] {
    store.issuedRefreshTokens.filter { store.grants[$0.grantID]?.authorization.user.subject == subject }.map(\.token)
  }

  /// The tokens the revocation endpoint revoked (RFC 7009), oldest first: how a test checks that a
  /// client revoked a token it let go of.
  public var revokedTokens: [String] { store.revokedTokens }
}
