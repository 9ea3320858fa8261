import Foundation

/// What an ID token from a refresh is checked against (OpenID Connect Core §12.2), whatever the stored
/// record still holds: it must be about the session's user.
enum RefreshIdentity: Sendable {
  /// The stored ID token: `iss`, `sub`, `aud`, `azp` and `auth_time` must be its own (and the pinned
  /// issuer and subject, when the record has them).
  case original(IDToken, pinned: (issuer: String, subject: String)?)
  /// The `iss` and `sub` of the session's first ID token, when the stored one is missing or cannot be
  /// read.
  case pinned(issuer: String, subject: String)
  /// The session never had an ID token (a device sign-in without one): the first one seen gets the
  /// checks every ID token gets, and is pinned.
  case firstSeen
  /// The stored ID token cannot be read and nothing was pinned (a record of an earlier version): a new
  /// ID token cannot be tied to the session's user, so it is not taken.
  case unknown

  init(record: TokenRecord) {
    let pinned = record.pinnedIssuer.flatMap { issuer in record.pinnedSubject.map { (issuer, $0) } }
    if let stored = record.idToken, let original = try? IDToken(restoring: stored) {
      self = .original(original, pinned: pinned)
    } else if let pinned {
      self = .pinned(issuer: pinned.0, subject: pinned.1)
    } else if record.idToken == nil {
      self = .firstSeen
    } else {
      self = .unknown
    }
  }

  /// Checks `idToken`, from a refresh that also returned `accessToken`, against the session.
  ///
  /// - Returns: the validated token, or `nil` when it cannot be tied to the session's user
  ///   (``unknown``): the session keeps its claims.
  /// - Throws: ``XidError/Code/invalidIDToken`` when it is about another user or issuer, and the errors
  ///   of ``OpenIDClient/validateIDToken(_:purpose:accessToken:authorizationCode:)``.
  ///
  /// - Parameter checkingTimes: whether `exp`, `iat`, `nbf` and `auth_time` are checked against the
  ///   clock (only turned off to tell a clock skew from a foreign token).
  func check(
    _ idToken: String, accessToken: String, client: OpenIDClient, logger: any XidLogger, checkingTimes: Bool = true
  ) async throws -> IDToken? {
    switch self {
    case .original(let original, let pinned):
      let validated = try await client.validateIDToken(
        idToken, purpose: .refresh(original: original), accessToken: accessToken, checkingTimes: checkingTimes)
      if let pinned { try Self.require(validated, issuer: pinned.issuer, subject: pinned.subject) }
      return validated
    case .pinned(let issuer, let subject):
      let validated = try await client.validateIDToken(
        idToken, purpose: .withoutNonce, accessToken: accessToken, checkingTimes: checkingTimes)
      try Self.require(validated, issuer: issuer, subject: subject)
      return validated
    case .firstSeen:
      return try await client.validateIDToken(
        idToken, purpose: .withoutNonce, accessToken: accessToken, checkingTimes: checkingTimes)
    case .unknown:
      logger.log(
        .notice, category: "refresh",
        "the stored ID token cannot be read and no subject was pinned, so the refreshed ID token cannot be tied to the signed-in user; it was not taken (sign in again to restore the user's claims)"
      )
      return nil
    }
  }

  private static func require(_ token: IDToken, issuer: String, subject: String) throws {
    guard token.issuer == issuer else {
      throw XidError(
        .invalidIDToken, "the ID token from the refresh has another \"iss\" than the session's first ID token")
    }
    guard token.subject == subject else {
      throw XidError(
        .invalidIDToken,
        "the ID token from the refresh is about another user (\"sub\" differs from the session's first ID token's)")
    }
  }

  /// What a failed check of a refreshed ID token means for the tokens that came with it.
  enum Failure: Error {
    /// The check may pass later (the provider's keys cannot be fetched, it names a key the client
    /// cannot see yet, or a clock is off): keep the new tokens and the old claims.
    case mayPassLater(XidError)
    /// The answer is not this session's (another `iss`, `sub` or `aud`, a bad signature by a known
    /// key, a malformed token): end the session.
    case foreign(XidError)
  }

  /// Checks `idToken` and, when that fails, tells why.
  ///
  /// - Returns: the validated token, `nil` when it is not taken (``unknown``), or the failure.
  func checkOrClassify(_ idToken: String, accessToken: String, client: OpenIDClient, logger: any XidLogger) async
    -> Result<IDToken?, Failure>
  {
    do {
      return .success(try await check(idToken, accessToken: accessToken, client: client, logger: logger))
    } catch let error as XidError {
      switch error.code {
      // `invalidKey`: the provider signs with an RSA key shorter than 2048 bits, which it may replace.
      case .keySetUnavailable, .unknownSigningKey, .noMatchingKey, .invalidKey, .networkFailure, .discoveryFailed,
        .responseTooLarge, .cancelled, .unexpectedResponse:
        return .failure(Failure.mayPassLater(error))
      case .invalidIDToken:
        // The claims failed: on time alone (a clock skew), or on who or what the token is about.
        do {
          _ = try await check(idToken, accessToken: accessToken, client: client, logger: logger, checkingTimes: false)
          return .failure(Failure.mayPassLater(error))
        } catch let other as XidError {
          return .failure(Failure.foreign(other))
        } catch {
          return .failure(Failure.mayPassLater(error as? XidError ?? XidError(.cancelled, "the check was cancelled")))
        }
      default:
        return .failure(Failure.foreign(error))
      }
    } catch {
      return .failure(Failure.mayPassLater(XidError(.cancelled, "the check of the refreshed ID token was cancelled")))
    }
  }
}
