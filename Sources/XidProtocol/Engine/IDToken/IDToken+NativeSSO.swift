extension IDToken {
  /// `sid`: the provider's session that issued the token, when it says (OpenID Connect Front- and
  /// Back-Channel Logout; required by Native SSO, draft 07 §3.4.1).
  public var sessionID: String? { claims.sessionID }

  /// `ds_hash`: the binding of the token to the device secret issued with it (Native SSO, draft 07
  /// §3.4.1), when it has one.
  public var deviceSecretHash: String? { claims.deviceSecretHash }

  /// Checks that `deviceSecret` belongs with this ID token, as the device secret and ID token of one
  /// Native SSO answer must: the token has a `ds_hash`, and, where `rule` says how the provider
  /// derives it, `ds_hash` is that function of the secret. Compared in constant time.
  ///
  /// - Parameters:
  ///   - deviceSecret: the device secret of the same answer.
  ///   - rule: the provider's derivation; see ``SessionPolicy/deviceSecretHashRule``.
  /// - Throws: ``XidError/Code/deviceSecretMismatch`` when `ds_hash` is missing or does not match.
  ///   The reason shows neither the secret nor the hash.
  public func checkDeviceSecret(_ deviceSecret: String, rule: DeviceSecretHashRule) throws {
    guard let hash = deviceSecretHash, !hash.isEmpty else {
      throw XidError(
        .deviceSecretMismatch,
        "the ID token issued with the device secret has no \"ds_hash\" claim, which Native SSO requires to bind the two"
      )
    }
    switch rule {
    case .providerDefined: return
    case .atHashRule:
      guard SafeText.constantTimeEquals(hash, TokenHash.value(for: deviceSecret, algorithm: algorithm)) else {
        throw XidError(
          .deviceSecretMismatch,
          "the ID token's \"ds_hash\" is not the hash of the device secret it came with (at_hash's rule, SessionPolicy.deviceSecretHashRule): they are not a pair"
        )
      }
    }
  }
}
