import Foundation

extension TestProvider {
  /// A hostile mode: a deliberate protocol violation that a relying party must detect, as the
  /// OpenID Foundation's RP conformance tests drive them.
  ///
  /// Turn one on with ``TestProvider/misbehave(_:_:)`` for the next response it applies to
  /// (``Repetition/once``), a number of them, or all of them until ``TestProvider/behave()``.
  /// Several can be on at once; each applies where it makes sense (ID token modes to every ID token
  /// the token endpoint issues, redirect modes to authorization responses, and so on) and is used up
  /// only there.
  ///
  /// ```swift
  /// try await provider.misbehave(.wrongNonce, .once)
  /// // the next ID token carries a nonce the client did not send
  /// ```
  public enum Misbehavior: Sendable, Hashable {
    // MARK: ID tokens

    /// The ID token's `iss` is ``foreignIssuer``: that of a sign-in, a refresh or an exchange,
    /// whichever the token endpoint issues next (for Native SSO, an ID token of another issuer).
    case wrongIssuer
    /// The ID token has no `sub`.
    case missingSubject
    /// The ID token's `aud` is ``foreignAudience``, and `azp` names it too.
    case wrongAudience
    /// The ID token has no `iat`.
    case missingIssuedAt
    /// The ID token's header has no `kid`, and the JWKS publishes only the current key (turning this
    /// on drops retired and decoy keys from the JWKS).
    case missingKeyID
    /// The ID token's header has no `kid`, and the JWKS publishes several keys of its algorithm
    /// (turning this on adds a decoy key when the JWKS has only one).
    case missingKeyIDWithSeveralKeys
    /// The ID token is unsigned: header `{"alg":"none"}` and an empty signature.
    case unsignedIDToken
    /// The ID token's signature is corrupted (one bit flipped), whatever the signing algorithm;
    /// set ``Configuration/signingAlgorithm`` to RS256 or ES256 for those conformance cases.
    case invalidSignature
    /// The ID token's `at_hash` is the hash of another access token.
    case wrongAccessTokenHash
    /// The ID token's `nonce` is not the one the client sent (and is present even when it sent none).
    case wrongNonce
    /// The ID token expired an hour ago (`exp` and `iat` in the past).
    case expiredIDToken
    /// The ID token's `iat` is an hour in the future.
    case issuedInFuture
    /// A refresh response's ID token has the `sub` ``foreignSubject``. Only refresh responses use
    /// this mode up.
    case otherSubjectOnRefresh
    /// Right before signing the ID token, the provider rotates its signing key, so the token names
    /// a `kid` that a client's cached JWKS does not have (the retired key stays published or not as
    /// ``Configuration/keepsPreviousKeysOnRotation`` says).
    case rotateKeyBeforeSigning

    // MARK: Native SSO (OpenID Connect Native SSO for Mobile Apps 1.0)

    /// The ID token issued with a device secret has a `ds_hash` that is the hash of another secret.
    case wrongDeviceSecretHash
    /// The ID token issued with a device secret has no `ds_hash`.
    case missingDeviceSecretHash
    /// A Native SSO exchange answers with an ID token whose `sub` is ``foreignSubject``: another
    /// user than the family's. Only exchanges use this mode up.
    case otherSubjectOnExchange
    /// A Native SSO exchange answers with an ID token for the family's client (the `aud` and `azp`
    /// of the ID token it was sent), not for the client that asked. Only exchanges use this mode up.
    case familyAudienceOnExchange
    /// A Native SSO exchange accepts a device secret that is no longer valid: revoked, rotated out,
    /// expired, or of a device session a family sign-out ended. Used up only by such a secret.
    case acceptsDeviceSecretAfterSignOut

    // MARK: DPoP (RFC 9449)

    /// The next request with a DPoP proof is answered `use_dpop_nonce` with a new nonce, even when
    /// the proof carried the current one (the server rotated its nonce at that moment).
    case demandDPoPNonce
    /// The next DPoP proof is refused as a replay (`invalid_dpop_proof`), as if its `jti` had been
    /// seen before.
    case replayedDPoPProof
    /// The token endpoint answers a request with a valid DPoP proof with unbound tokens and
    /// `token_type: Bearer`, as a provider that ignores DPoP does.
    case bearerTokenForDPoPRequest

    // MARK: Other responses

    /// The ID token of a sign-in has the `acr` ``foreignACR``, whatever the request asked for.
    case unrequestedACR
    /// The ID token of a sign-in states an authentication an hour before the one that took place
    /// (`auth_time`), as a provider that ignores `max_age` and `prompt=login` would.
    case staleAuthTime
    /// The ID token of a sign-in (an authorization code's) has the `sub` ``foreignSubject``, as if
    /// another user had signed in at the provider. Only code exchanges use this mode up.
    case otherSubjectOnSignIn
    /// The next token response grants, beside what was asked for, an authorization detail of the
    /// type ``foreignAuthorizationDetailType`` (RFC 9396), which no request names.
    case unrequestedAuthorizationDetails
    /// The protected resource's metadata (RFC 9728) states the `resource` ``foreignResource``, not
    /// the identifier it is served for.
    case otherResourceInMetadata
    /// The UserInfo response's `sub` is ``foreignSubject``.
    case otherSubjectInUserInfo
    /// The discovery document's `issuer` is ``foreignIssuer``.
    case otherIssuerInDiscovery
    /// The authorization response has no `state`.
    case missingState
    /// The authorization response's `state` is not the one the client sent.
    case wrongState
    /// The authorization response's `iss` (RFC 9207) is ``foreignIssuer``.
    case wrongIssuerInRedirect
    /// The authorization response has no `iss`, although discovery says it always has one.
    case missingIssuerInRedirect
    /// The authorization endpoint redirects back with this OAuth `error` (for example
    /// `"server_error"` or `"temporarily_unavailable"`) instead of asking the user.
    case authorizationError(_ error: String, description: String? = nil)

    /// The issuer the wrong-issuer modes name: `https://attacker.xid.test`.
    public static let foreignIssuer = "https://attacker.xid.test"
    /// The subject the other-subject modes name: `mallory`.
    public static let foreignSubject = "mallory"
    /// The audience ``wrongAudience`` names: `another-client`.
    public static let foreignAudience = "another-client"
    /// The resource ``otherResourceInMetadata`` names: `https://attacker.xid.test/resource`.
    public static let foreignResource = "https://attacker.xid.test/resource"
    /// The authorization detail type ``unrequestedAuthorizationDetails`` grants:
    /// `urn:xid:test:details:unasked`.
    public static let foreignAuthorizationDetailType = "urn:xid:test:details:unasked"
    /// The authentication context class ``unrequestedACR`` names: `urn:xid:test:acr:none`.
    public static let foreignACR = "urn:xid:test:acr:none"
  }

  /// How many responses a ``Misbehavior`` applies to.
  public enum Repetition: Sendable, Hashable {
    /// The next one.
    case once
    /// The next `count`.
    case times(Int)
    /// Every one, until ``TestProvider/behave()``.
    case always
  }
}

/// The hostile modes that are on, and how many more responses each applies to.
struct MisbehaviorBook {
  private var entries: [(misbehavior: TestProvider.Misbehavior, remaining: Int?)] = []

  /// Turns `misbehavior` on, replacing an earlier setting of the same mode.
  mutating func add(_ misbehavior: TestProvider.Misbehavior, _ repetition: TestProvider.Repetition) {
    entries.removeAll { $0.misbehavior == misbehavior }
    switch repetition {
    case .once: entries.append((misbehavior, 1))
    case .times(let count) where count > 0: entries.append((misbehavior, count))
    case .times: break
    case .always: entries.append((misbehavior, nil))
    }
  }

  /// Turns every mode off.
  mutating func removeAll() { entries.removeAll() }

  /// Whether `misbehavior` is on, without using it up.
  func isOn(_ misbehavior: TestProvider.Misbehavior) -> Bool { entries.contains { $0.misbehavior == misbehavior } }

  /// Uses up one application of `misbehavior`; `true` when it was on.
  mutating func use(_ misbehavior: TestProvider.Misbehavior) -> Bool {
    use { $0 == misbehavior } != nil
  }

  /// Uses up one application of the first mode that `matches`, and returns it.
  mutating func use(where matches: (TestProvider.Misbehavior) -> Bool) -> TestProvider.Misbehavior? {
    guard let index = entries.firstIndex(where: { matches($0.misbehavior) }) else { return nil }
    let found = entries[index].misbehavior
    if let remaining = entries[index].remaining {
      if remaining <= 1 { entries.remove(at: index) } else { entries[index].remaining = remaining - 1 }
    }
    return found
  }
}
