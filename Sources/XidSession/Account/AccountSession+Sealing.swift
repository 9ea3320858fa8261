extension AccountSession {
  /// A sign-in's `record` as it is stored: with a sealer, its refresh token sealed with a new key,
  /// made beside the key of the record stored now (read now, not from memory: another process may
  /// have signed in), which keeps its key until `record` replaces it.
  func sealedWithNewKey(_ record: TokenRecord) async throws -> TokenRecord {
    guard let sealer, let refreshToken = record.refreshToken else { return record }
    let live = (try? records.read())?.record?.sealedRefreshToken
    return Self.sealed(record, as: try await sealer.sealWithNewKey(refreshToken, besides: live))
  }

  /// A refreshed `record` as it is stored: with a sealer, its refresh token sealed with the key
  /// that sealed `previous`'s.
  func sealedForStorage(_ record: TokenRecord, keyOf previous: TokenRecord) async throws -> TokenRecord {
    guard let sealer, let refreshToken = record.refreshToken else { return record }
    return Self.sealed(record, as: try await sealer.seal(refreshToken, withKeyOf: previous.sealedRefreshToken))
  }

  private static func sealed(_ record: TokenRecord, as result: RefreshTokenVault.Sealed) -> TokenRecord {
    var sealed = record
    sealed.sealedRefreshToken = result.text
    // The state belongs to the key: a token sealed again with the same key keeps the record's.
    if result.madeKey { sealed.sealedBiometryState = result.biometryState }
    sealed.refreshToken = nil
    return sealed
  }

  /// `record` with its refresh token opened for a refresh: asks the user when it is sealed.
  ///
  /// - Throws: ``XidError/Code/userPresenceRequired`` when this process cannot open it (no
  ///   protection configured, as in an extension that leaves it to the app), and the sealer's errors.
  func openedForRefresh(_ record: TokenRecord) async throws -> TokenRecord {
    guard let sealed = record.sealedRefreshToken else { return record }
    guard let sealer else {
      throw XidError(
        .userPresenceRequired,
        "the refresh token is sealed and needs the user, and this process has no PresenceOptions.refreshTokenProtection; refresh in the app (the access token stays usable until it expires)"
      )
    }
    var opened = record
    opened.refreshToken = try await sealer.open(sealed, biometryState: record.sealedBiometryState)
    opened.sealedRefreshToken = nil
    return opened
  }
}

extension TokenRecord {
  /// The refresh token as stored, sealed or not: what tells one grant from the next.
  var storedRefreshCredential: String? { refreshToken ?? sealedRefreshToken }
}

extension AccountSession {
  /// The refresh token to revoke at sign-out: the stored one, or the sealed one when a reused
  /// confirmation can open it without asking. A sealed token that cannot be opened is not revoked;
  /// deleting its key makes it unusable anyway.
  nonisolated func revocableRefreshToken(of record: TokenRecord?) async -> String? {
    guard let record else { return nil }
    if let refreshToken = record.refreshToken { return refreshToken }
    guard let sealed = record.sealedRefreshToken, let sealer else { return nil }
    return await sealer.openWithoutAsking(sealed)
  }
}
