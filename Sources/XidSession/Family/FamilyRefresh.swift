import Foundation

/// What a refresh of the app family's own app does for the family (OpenID Connect Native SSO for
/// Mobile Apps 1.0, draft 07 §3.3 and §3.4): it holds the family's lock around the refresh, taken
/// before the account's; it sends the family's device secret, so that the provider keeps it or
/// rotates it (a provider that gets none mints a new one); and it keeps a rotated secret together
/// with the ID token that binds it, as a pair, or not at all.
///
/// The family's own app is the one whose sign-in made the family's record (its record links to the
/// family and came from no exchange); a sibling holds no device secret and refreshes as any app.
struct FamilyRefresh: RefreshCompanion {
  let store: FamilyStore
  let client: OpenIDClient
  let logger: any XidLogger

  /// Whether `record` is the family's own sign-in, whose refreshes carry the device secret.
  static func holdsDeviceSecret(_ record: TokenRecord?) -> Bool {
    guard let record else { return false }
    return record.familyKey != nil && !record.fromFamilyExchange
  }

  /// Runs `body` (a refresh of `record`, which takes the account's lock) under the family's lock
  /// when `record` is the family's own sign-in; as it is otherwise.
  func holdingLock<T>(
    for record: TokenRecord?, isolation: isolated (any Actor)?, _ body: () async throws -> T
  ) async throws -> T {
    guard Self.holdsDeviceSecret(record) else { return try await body() }
    return try await store.withLock(isolation: isolation, body)
  }

  /// The family's device secret to send with `record`'s refresh: `nil` unless `record` is the
  /// family's own sign-in and the family's record is the one it belongs to (a family signed out, or
  /// signed in again, sends nothing; so does a record that cannot be read).
  func deviceSecret(for record: TokenRecord) -> String? {
    familyRecord(of: record)?.deviceSecret
  }

  /// Keeps the device secret of a refresh's answer with the answer's ID token, checked for `record`'s
  /// session (`nil` when there was none, or it could not be checked): the family's record takes both
  /// in one write, keeping its family sign-in ID, so that the siblings stay linked to it. A secret
  /// that is the one sent changes nothing. A new secret without an ID token that binds it (`ds_hash`)
  /// is not a pair and is not kept; nor is anything written over a family record deleted or replaced
  /// meanwhile. Failures are logged, never thrown: the refresh's own tokens are this app's session
  /// whatever becomes of the family's pair.
  func keep(_ secret: String?, idToken: IDToken?, for record: TokenRecord) {
    guard let secret, !secret.isEmpty, Self.holdsDeviceSecret(record), let family = familyRecord(of: record),
      secret != family.deviceSecret
    else { return }
    guard let idToken else {
      logger.log(
        .notice, category: "family",
        "a refresh brought a new device secret without an ID token checked for this session: not a pair (draft 07 §3.4), the family's record keeps its pair"
      )
      return
    }
    do {
      try client.checkDeviceSecret(secret, boundTo: idToken)
      try store.write(family.rotated(deviceSecret: secret, idToken: idToken))
      logger.log(.info, category: "family", "kept the device secret a refresh rotated, with its ID token")
    } catch let error as XidError {
      logger.log(
        .notice, category: "family",
        "the device secret a refresh rotated is not kept (\(error.code.rawValue)): the family's record keeps its pair")
    } catch {
      logger.log(.notice, category: "family", "the device secret a refresh rotated is not kept")
    }
  }

  /// The family's record `record` belongs to, when it can be read and is still that family sign-in.
  private func familyRecord(of record: TokenRecord) -> FamilyRecord? {
    guard Self.holdsDeviceSecret(record), let key = record.familyKey,
      let family = try? store.read(key: key), family.familySignInID == record.familySignInID
    else { return nil }
    return family
  }
}
