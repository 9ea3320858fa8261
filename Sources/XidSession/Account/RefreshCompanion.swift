/// What a refresh of an account also does for those who share its sign-in, beside the account's own
/// tokens. The app family's own app is the one case (``FamilyRefresh``): it sends the family's device
/// secret and keeps a rotated one with its ID token.
protocol RefreshCompanion: Sendable {
  /// Runs `body`, a refresh of `record` that takes the account's lock, holding whatever lock must be
  /// taken before the account's.
  func holdingLock<T>(
    for record: TokenRecord?, isolation: isolated (any Actor)?, _ body: () async throws -> T
  ) async throws -> T

  /// The secret to send with `record`'s refresh (`device_secret`), if any.
  func deviceSecret(for record: TokenRecord) -> String?

  /// Takes what `record`'s refresh brought for the companion: a device secret, with the answer's ID
  /// token when it was checked for `record`'s session. Never throws: the refresh's tokens are the
  /// account's whatever becomes of this.
  func keep(_ secret: String?, idToken: IDToken?, for record: TokenRecord)
}
