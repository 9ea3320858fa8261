/// Seals and opens the stored refresh token with a key that needs the user
/// (``PresenceOptions/refreshTokenProtection``): the device's vault, as the account sees it.
protocol RefreshTokenSealer: Sendable {
  /// A sign-in's `refreshToken` sealed with a new key, made beside the key of `live` (the stored
  /// session's sealed token), which stays until the sign-in's record is stored.
  func sealWithNewKey(_ refreshToken: String, besides live: String?) async throws -> RefreshTokenVault.Sealed
  /// A refreshed `refreshToken` sealed with the key that sealed `previous`.
  func seal(_ refreshToken: String, withKeyOf previous: String?) async throws -> RefreshTokenVault.Sealed
  /// The refresh token in `sealed`, asking the user (or reusing the call's confirmation).
  func open(_ sealed: String, biometryState: String?) async throws -> String
  /// The refresh token in `sealed` when a reused confirmation opens it without asking; else `nil`.
  func openWithoutAsking(_ sealed: String) async -> String?
  /// Deletes the keys other than the one that sealed `kept` (all of them for `nil`): a sign-in's
  /// record is stored.
  func deleteKeys(except kept: String?) async throws
  /// Deletes the key that sealed `sealed`: a sign-in's record was not stored.
  func deleteKey(of sealed: String) async throws
}

extension RefreshTokenVault: RefreshTokenSealer {}
