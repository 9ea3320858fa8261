import Foundation

/// The app family (OpenID Connect Native SSO for Mobile Apps 1.0, draft 07): the family's record, a
/// sibling app's sign-in by token exchange, and the check that ends a sibling's session once the
/// family signed out.
///
/// The rules (docs/app-family.md):
/// - The family lock is always taken before an account's lock.
/// - A device secret is kept only with the ID token that came with it, whose `ds_hash` matches it
///   (draft 07 §3.4; checked where ``SessionPolicy/deviceSecretHashRule`` knows the derivation): the
///   record's secret and ID token are replaced together or not at all. A device secret without an
///   ID token is refused (``XidError/Code/deviceSecretMismatch``) and changes nothing; an ID token
///   without a device secret never replaces the family's.
/// - Nothing is written over a family record deleted or replaced meanwhile: its family sign-in ID is
///   compared under the family lock before anything is stored.
/// - Only a read that succeeds and shows the family's record gone, or replaced, ends a sibling's
///   session; a storage error, a locked keychain or a record of an unknown format ends nothing.
/// - An exchange answered `invalid_grant` proves the device secret dead: the family's record is
///   deleted (when it is still the one sent) and ``XidError/Code/sessionExpired`` thrown. Any other
///   failure, and every refusal of a misbehaving answer, leaves the family's record as it is.
extension SessionEngine {
  /// The family's store; `nil` outside an app family.
  nonisolated func familyStore() -> FamilyStore? {
    FamilyStore(configuration: configuration, storage: storage)
  }

  /// What the account's refreshes do for the app family (``FamilyRefresh``); `nil` outside one.
  static func refreshCompanion(
    configuration: XidConfiguration, storage: any TokenStorageAdapter, client: OpenIDClient
  ) -> (any RefreshCompanion)? {
    FamilyStore(configuration: configuration, storage: storage).map {
      FamilyRefresh(store: $0, client: client, logger: configuration.parts.logger)
    }
  }

  private nonisolated func requireFamilyStore(for operation: String) throws -> FamilyStore {
    guard let store = familyStore() else {
      throw XidError(
        .invalidConfiguration,
        "\(operation) needs an app family: set ClientIdentity.family, with the same name in every app of the family")
    }
    return store
  }

  // MARK: - Accounts

  /// The users signed in to the app family at this configuration's provider, with their display
  /// claims and never a token, so that an app can offer "Continue as …". Reads storage, never the
  /// network.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` without ``ClientIdentity/family``, and storage
  ///   errors (``XidError/Code/storageLocked`` while the device is locked). A family record of a
  ///   format this version cannot read is skipped and left as it is.
  public nonisolated func familyAccounts() throws -> [FamilyAccount] {
    let store = try requireFamilyStore(for: "familyAccounts()")
    let issuer = configuration.identity.issuerIdentifier
    return try store.all().filter { $0.issuer == issuer }.map(\.account)
  }

  // MARK: - The family's own sign-in

  /// Stores a family member's sign-in: the family's record (under the family lock), then this app's
  /// record linked to it (under the account's lock, taken after the family's).
  func familySignedIn(_ record: TokenRecord, tokens: TokenResponse, idToken: IDToken?, family: AppFamily)
    async throws -> TokenRecord
  {
    let store = try requireFamilyStore(for: "a family sign-in")
    let familyRecord: FamilyRecord
    do {
      familyRecord = try makeFamilyRecord(tokens: tokens, idToken: idToken, family: family)
    } catch {
      // Good tokens that cannot make the family's session are not kept.
      if let refreshToken = tokens.refreshToken {
        _ = await client.revokeBestEffort(
          refreshToken, hint: .refreshToken, category: "family", naming: "the refresh token of the refused sign-in")
      }
      throw error
    }
    var linked = record
    linked.familyKey = familyRecord.storageKey
    linked.familySignInID = familyRecord.familySignInID
    try await store.withLock(isolation: self) {
      try store.write(familyRecord)
      try await self.store(linked)
    }
    return linked
  }

  private func makeFamilyRecord(tokens: TokenResponse, idToken: IDToken?, family: AppFamily) throws -> FamilyRecord {
    guard let deviceSecret = tokens.deviceSecret, !deviceSecret.isEmpty else {
      throw XidError(
        .invalidTokenResponse,
        "the app family's sign-in asked for the device_sso scope and the provider's answer has no device_secret; allow Native SSO for this client at the provider"
      )
    }
    guard let idToken else {
      throw XidError(.deviceSecretMismatch, "the device secret came without an ID token to bind it (ds_hash)")
    }
    guard let sessionID = idToken.sessionID, !sessionID.isEmpty else {
      throw XidError(
        .invalidIDToken, "the ID token issued with the device secret has no \"sid\" claim, which Native SSO requires")
    }
    try client.checkDeviceSecret(deviceSecret, boundTo: idToken)
    return try FamilyRecord(
      family: family, clientId: configuration.identity.clientId, idToken: idToken, deviceSecret: deviceSecret,
      signedInAt: configuration.parts.clock.now)
  }

  // MARK: - A sibling's sign-in

  /// Signs this app in from the family's session with no browser: an RFC 8693 token exchange of the
  /// family's ID token (sent even when it has expired: the provider decides by its session, draft 07
  /// §4.3) and device secret (with draft 07's token type, or the older drafts' with ``ProviderQuirks/legacyDeviceSecretTokenType``) for this app's own tokens,
  /// with `audience` the issuer. With DPoP on, the exchange carries a proof and the tokens are bound
  /// to a new key of this app. The ID token that comes back must be for this client, of the family's
  /// issuer and about the family's user.
  ///
  /// Under the family lock, an app already signed in from the same family session returns its
  /// session without asking the provider again: processes that sign in at once make one exchange.
  ///
  /// - Parameters:
  ///   - account: one of ``familyAccounts()``.
  ///   - scopes: this app's scopes; `nil` for the configured ones (never `device_sso`: only the
  ///     family's own sign-in holds the device secret).
  /// - Throws: ``XidError/Code/sessionExpired`` when the family session is gone (signed out, or the
  ///   provider answered `invalid_grant`): sign in with the browser then;
  ///   ``XidError/Code/deviceSecretMismatch``, ``XidError/Code/foreignTokenResponse`` and
  ///   ``XidError/Code/invalidIDToken`` for an answer that fails a check (the family's record is
  ///   kept); token endpoint, network and storage errors.
  public func signIn(from account: FamilyAccount, scopes: [String]? = nil) async throws -> XidSession {
    let store = try requireFamilyStore(for: "signIn(from:)")
    try await requireOpenLock(for: "a sign-in from the app family")
    let metadata = try await client.metadata()
    if metadata.document["native_sso_supported"]?.boolValue == false {
      throw XidError(
        .invalidConfiguration,
        "signIn(from:): the provider's metadata says native_sso_supported is false; enable Native SSO at the provider, or sign in with the browser"
      )
    }
    let record = try await store.withLock(isolation: self) { () async throws -> TokenRecord in
      guard let family = try store.read(key: account.id), family.issuer == configuration.identity.issuerIdentifier
      else { throw Self.familyGone() }
      if let own = try await self.account.record(), own.familyKey == account.id,
        own.familySignInID == family.familySignInID
      {
        return own
      }
      return try await exchange(from: family, store: store, scopes: scopes)
    }
    return try XidSession(record: record, dpopBinding: binding(of: record))
  }

  /// The exchange of ``signIn(from:scopes:)``, under the family lock.
  private func exchange(from family: FamilyRecord, store: FamilyStore, scopes: [String]?) async throws -> TokenRecord {
    let identity = configuration.identity
    let requested = ClientIdentity.withOpenID((scopes ?? identity.scopes).filter { $0 != AppFamily.deviceSSOScope })
    let key = try makeSignInKey()
    let request = TokenExchangeRequest.nativeSSO(
      idToken: family.idToken, deviceSecret: family.deviceSecret, issuer: identity.issuerIdentifier,
      scopes: requested,
      deviceSecretType: configuration.policy.providerQuirks.contains(.legacyDeviceSecretTokenType)
        ? .legacyDeviceSecret : .deviceSecret)
    let result: TokenExchangeResult
    do {
      result = try await client.exchange(request, dpopKey: key?.key)
    } catch let error as XidError where error.isInvalidGrant {
      if let key { dpopKeys.delete(thumbprint: key.thumbprint) }
      // The provider proved the device secret, or its session, dead.
      if let current = try? store.read(key: family.storageKey), current.familySignInID == family.familySignInID {
        try? store.delete(key: family.storageKey)
      }
      configuration.parts.logger.log(.info, category: "family", "the app family's session is over at the provider")
      throw Self.familyGone()
    } catch {
      if let key { dpopKeys.delete(thumbprint: key.thumbprint) }
      throw error
    }
    do {
      let record = try exchangedRecord(result, family: family, requested: requested, key: key)
      let rotated = try rotated(family, by: result)
      // Re-read under the lock: a family sign-out that could not wait for it is never undone.
      guard let current = try store.read(key: family.storageKey), current.familySignInID == family.familySignInID
      else { throw Self.familyGone() }
      if let rotated { try store.write(rotated) }
      try await self.store(record)
      presence.didSignIn()
      configuration.parts.logger.log(.info, category: "sign-in", "signed in from the app family")
      return record
    } catch {
      if let key { dpopKeys.delete(thumbprint: key.thumbprint) }
      if let refreshToken = result.tokens.refreshToken {
        _ = await client.revokeBestEffort(
          refreshToken, hint: .refreshToken, category: "family", naming: "the refresh token of the refused exchange")
      }
      throw error
    }
  }

  private func exchangedRecord(
    _ result: TokenExchangeResult, family: FamilyRecord, requested: [String], key: PreparedDPoPKey?
  ) throws -> TokenRecord {
    let identity = configuration.identity
    guard let idToken = result.idToken else {
      throw XidError(.invalidTokenResponse, "the app family's token exchange answered without an ID token for this app")
    }
    guard idToken.issuer == family.issuer, idToken.subject == family.subject else {
      throw XidError(
        .foreignTokenResponse,
        "the ID token of the app family's token exchange is of another issuer or user than the family's session")
    }
    guard result.tokens.tokenType.accessTokenType != nil else {
      throw XidError(.invalidTokenResponse, "the app family's token exchange issued no access token for this app")
    }
    var record = TokenRecord(
      version: 1, accessToken: result.tokens.accessToken, tokenType: result.tokens.tokenType.rawValue,
      expiresAt: result.tokens.expiresAt, refreshToken: result.tokens.refreshToken, idToken: idToken.compact,
      scopes: result.tokens.scope ?? requested, issuer: identity.issuerIdentifier, clientId: identity.clientId,
      account: identity.account, signInID: try TokenRecord.newSignInID(), pinnedIssuer: idToken.issuer,
      pinnedSubject: idToken.subject, dpopKeyThumbprint: key?.thumbprint)
    record.familyKey = family.storageKey
    record.familySignInID = family.familySignInID
    record.fromFamilyExchange = true
    return record
  }

  /// The family's record with the answer's new device secret and the ID token that binds it, as a
  /// pair; `nil` when the answer brings no new device secret.
  ///
  /// - Throws: ``XidError/Code/deviceSecretMismatch`` for a new device secret whose ID token does
  ///   not bind it (draft 07 §3.4: it comes with one whose `ds_hash` matches).
  private func rotated(_ record: FamilyRecord, by result: TokenExchangeResult) throws -> FamilyRecord? {
    guard let secret = result.tokens.deviceSecret, !secret.isEmpty, secret != record.deviceSecret else { return nil }
    guard let idToken = result.idToken else {
      throw XidError(.deviceSecretMismatch, "a new device secret came without an ID token to bind it (ds_hash)")
    }
    try client.checkDeviceSecret(secret, boundTo: idToken)
    return record.rotated(deviceSecret: secret, idToken: idToken)
  }

  static func familyGone() -> XidError {
    XidError(
      .sessionExpired,
      "the app family's session is over (signed out in another app of the family, or ended at the provider); sign in again with the browser"
    )
  }

  // MARK: - Sign-out and the family check

  /// Deletes the family's record that `record` belongs to, under the family lock (without it when
  /// the lock is not free in time: a sign-out never fails for a lock, and an exchange under way
  /// re-reads the record before it stores anything).
  ///
  /// - Returns: its device secret, for the revocation; `nil` when there was none.
  func removeFamilyRecord(of record: TokenRecord?) async throws -> String? {
    guard let store = familyStore(), let key = record?.familyKey else { return nil }
    let remove = { () throws -> String? in
      let found = try? store.read(key: key)
      try store.delete(key: key)
      return found?.deviceSecret
    }
    do {
      return try await store.withLock(isolation: self) { try remove() }
    } catch let error as XidError where error.code == .lockTimeout {
      return try remove()
    }
  }

  /// Revokes the family's device secret (RFC 7009 with the secret as the token: the draft defines no
  /// other way), best effort.
  func revokeDeviceSecret(_ secret: String?) async -> RevocationOutcome? {
    guard let secret else { return nil }
    return await client.revokeBestEffort(
      secret, hint: .refreshToken, category: "sign-out", naming: "the app family's device secret")
  }

  /// Ends this app's session when the family's record it belongs to is gone or replaced: the local
  /// record is deleted first, then its refresh token revoked (best effort), and
  /// ``XidError/Code/sessionExpired`` thrown. Only a read that succeeds counts: a storage error, a
  /// locked keychain or a record of an unknown format ends nothing. Called at launch (the first read
  /// of the session), before a refresh, and at a session event; never on the in-memory fast path.
  ///
  /// - Throws: ``XidError/Code/sessionExpired`` when it ended the session.
  nonisolated func checkFamilyLink() async throws {
    guard let store = familyStore() else { return }
    guard let own = try? await account.record(), let key = own.familyKey, let id = own.familySignInID else { return }
    let found: FamilyRecord?
    do {
      found = try store.read(key: key)
    } catch {
      return
    }
    if let found, found.familySignInID == id { return }
    try await endFamilySession(own)
  }

  /// The end of a session whose family signed out.
  private func endFamilySession(_ own: TokenRecord) async throws {
    // Only when it is still the session that was read: a new sign-in meanwhile is not ended.
    guard let removed = try await account.remove(ifSignInID: own.signInID) else { return }
    let key = removed.dpopKeyThumbprint.flatMap { try? dpopKeys.key(thumbprint: $0) }
    if let thumbprint = removed.dpopKeyThumbprint { dpopKeys.delete(thumbprint: thumbprint) }
    let revocable = await account.revocableRefreshToken(of: removed)
    await presence.didSignOut(logger: configuration.parts.logger)
    configuration.parts.logger.log(.info, category: "family", "signed out: the app family signed out")
    if let refreshToken = revocable, !(key?.key is PresenceDPoPKey) {
      _ = await client.revokeBestEffort(
        refreshToken, hint: .refreshToken, dpopKey: key?.key, category: "family",
        naming: "the refresh token of the session the app family signed out")
    }
    throw Self.familyGone()
  }
}
