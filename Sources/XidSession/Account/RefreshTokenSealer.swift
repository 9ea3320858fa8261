/// Seals and opens the stored refresh token with a key that needs the user
/// (``PresenceOptions/refreshTokenProtection``): the device's vault, as the account sees it.
protocol RefreshTokenSealer: Sendable {
  /// `refreshToken` sealed with the current key (a new one when `newKey`, at sign-in).
  func seal(_ refreshToken: String, newKey: Bool) async throws -> RefreshTokenVault.Sealed
  /// The refresh token in `sealed`, asking the user (or reusing the call's confirmation).
  func open(_ sealed: String, biometryState: String?) async throws -> String
  /// The refresh token in `sealed` when a reused confirmation opens it without asking; else `nil`.
  func openWithoutAsking(_ sealed: String) async -> String?
}

extension RefreshTokenVault: RefreshTokenSealer {}
