/// How a provider derives an ID token's `ds_hash` from the device secret issued with it (OpenID
/// Connect Native SSO for Mobile Apps 1.0, draft 07 §3.4.1).
///
/// The draft requires `ds_hash` and leaves its derivation to the provider, so a client can in
/// general only require it. Where the provider documents a derivation that Xid knows, Xid checks the
/// binding too (``IDToken/checkDeviceSecret(_:rule:)``).
public enum DeviceSecretHashRule: Sendable, Hashable {
  /// The provider's own derivation, unknown to Xid: `ds_hash` must be present and is not
  /// recomputed. The default.
  case providerDefined
  /// `at_hash`'s rule (OpenID Connect Core 1.0 §3.1.3.6) applied to the device secret: the
  /// base64url of the left half of the hash of its ASCII, the hash being the one of the ID token's
  /// algorithm (SHA-256 for ES256, RS256 and PS256; SHA-512 for EdDSA). `XidTesting`'s provider
  /// derives it so.
  case atHashRule
}
