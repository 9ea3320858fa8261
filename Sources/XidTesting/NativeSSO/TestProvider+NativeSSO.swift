import Foundation
import XidCore

// Device secrets and device sessions (OpenID Connect Native SSO for Mobile Apps 1.0, draft 07 §3).
extension TestProvider {
  /// The device secret a code exchange or refresh answers with, for a grant of `authorization`
  /// asking for `scopes`: none unless the scopes have `device_sso` and the answer carries an ID token
  /// (draft 07 §3.4: both or neither). The secret `presented` as `device_secret` when it is valid
  /// and of the same session (a new one instead when refreshes rotate it); a new one otherwise, as
  /// for an invalid one (§3.4: "as if no device_secret was specified"). None when the session's
  /// device session has ended.
  func deviceSecret(
    for authorization: Authorization, scopes: [String], refreshing: Bool, presented: String?, now: Date
  ) throws -> IssuedDeviceSecret? {
    guard configuration.nativeSSO.isSupported, scopes.contains("device_sso"),
      issuesIDToken(scopes: scopes, refreshing: refreshing)
    else { return nil }
    let sessionID = authorization.session.id
    if store.deviceSessions[sessionID]?.ended == true { return nil }
    if let presented, store.isValid(deviceSecret: presented, now: now),
      store.deviceSecrets[presented]?.sessionID == sessionID
    {
      guard refreshing && configuration.nativeSSO.rotatesDeviceSecretOnRefresh else {
        return IssuedDeviceSecret(value: presented, isReturned: true)
      }
      store.deviceSecrets[presented]?.retired = true
    }
    return IssuedDeviceSecret(value: try newDeviceSecret(for: authorization, now: now), isReturned: true)
  }

  /// A new device secret of `authorization`'s session, which starts the device session if needed.
  func newDeviceSecret(for authorization: Authorization, now: Date) throws -> String {
    let sessionID = authorization.session.id
    if store.deviceSessions[sessionID] == nil {
      store.deviceSessions[sessionID] = DeviceSessionRecord(user: authorization.user, session: authorization.session)
    }
    let secret = try Randomness.token()
    store.deviceSecrets[secret] = DeviceSecretRecord(
      sessionID: sessionID, clientId: authorization.clientId,
      expiresAt: configuration.nativeSSO.deviceSecretLifetime.map { now + $0 })
    store.issuedDeviceSecrets.append(secret)
    return secret
  }

  /// Ends the device session `sessionID`, as a family sign-out does: its device secrets stop
  /// working, the user's sign-in at the provider ends if it is that session, and, as
  /// ``NativeSSOSettings/endsGrantsWithDeviceSession`` says, every grant of the session is revoked.
  func endDeviceSession(id sessionID: String) {
    store.endDeviceSession(sessionID, endingGrants: configuration.nativeSSO.endsGrantsWithDeviceSession)
    if session?.id == sessionID { session = nil }
  }

  // MARK: What a test controls and reads

  /// Ends the device session with `sid` `sessionID`, as a family sign-out at the provider does (the
  /// user signs the device out in their account page): its device secrets stop working, a sibling's
  /// exchange is answered `invalid_grant`, and, as ``NativeSSOSettings/endsGrantsWithDeviceSession``
  /// says, every app's refresh tokens of the session stop working too.
  public func endDeviceSession(_ sessionID: String) { endDeviceSession(id: sessionID) }

  /// Every device secret issued, oldest first, whether still valid or not.
  public var issuedDeviceSecrets: [String] { store.issuedDeviceSecrets }

  /// Whether `deviceSecret` would be accepted now: issued, not rotated out, revoked or expired, and
  /// of a device session that is alive.
  public func isDeviceSecretValid(_ deviceSecret: String) -> Bool {
    store.isValid(deviceSecret: deviceSecret, now: clock.now)
  }

  /// Whether the device session with `sid` `sessionID` is alive: it was started by a sign-in with
  /// `device_sso`, and no family sign-out ended it.
  public func isDeviceSessionAlive(_ sessionID: String) -> Bool {
    store.deviceSessions[sessionID].map { !$0.ended } ?? false
  }

  /// The `audience` and `resource` values an access token was issued for by a token exchange, or
  /// `nil` for a token the provider does not know.
  public func audiences(ofAccessToken accessToken: String) -> [String]? { store.accessTokens[accessToken]?.audiences }
}
