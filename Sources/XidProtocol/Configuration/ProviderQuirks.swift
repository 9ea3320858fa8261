/// Deviations of a provider from the standards that Xid can be told to accept. All are off by default:
/// turn one on only for a provider that needs it.
public struct ProviderQuirks: OptionSet, Sendable, Hashable {
  public let rawValue: Int

  /// Creates a set of quirks from its raw value.
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// The token endpoint answers a refresh with a dead refresh token (revoked, expired, reused) with
  /// an empty HTTP 400 instead of an OAuth `invalid_grant` error, as glewlwyd does. With this quirk,
  /// such an answer to a refresh ends the session; without it, the session is kept, as for any answer
  /// that does not prove the grant dead.
  public static let emptyBadRequestIsInvalidGrant = ProviderQuirks(rawValue: 1 << 0)
  /// An app family's sign-in from another app sends the device secret with the token type of the
  /// older Native SSO drafts, `urn:x-oath:params:oauth:token-type:device-secret`, as Okta expects,
  /// instead of draft 07's `urn:openid:params:token-type:device-secret`.
  public static let legacyDeviceSecretTokenType = ProviderQuirks(rawValue: 1 << 1)
}
