import Foundation
import XidCore

extension TestProvider {
  /// How a ``TestProvider`` serves OpenID Connect Native SSO for Mobile Apps 1.0 (draft 07).
  ///
  /// A sign-in whose scope has `device_sso` gets a `device_secret` beside its tokens, and an ID token
  /// with `sid` (the device session) and `ds_hash`, derived by `at_hash`'s rule: the base64url of the
  /// left half of the SHA-256 of the secret (SHA-512 for EdDSA), so a client checks it with
  /// ``/Xid/DeviceSecretHashRule/atHashRule``. A refresh of such a grant brings the device secret
  /// it was sent, or a new one. Another client of the family (``TestClient/allowsTokenExchange``)
  /// then exchanges the family's ID token and device secret for its own tokens (draft 07 §4), and the
  /// provider checks what §4.3 lists: the device secret is valid and its session alive
  /// (`invalid_grant` otherwise), the ID token's signature and issuer, the `ds_hash` binding and the
  /// `sid` (`invalid_request` otherwise, as RFC 8693 §2.2.2 says for an unacceptable token), the
  /// actor token type, `audience` (the issuer: `invalid_target` otherwise), that both clients may
  /// share sign-ins (`unauthorized_client`), that a `scope` has `openid` (`invalid_scope`), and
  /// that no scope needs consent (`interaction_required`). The ID token may have expired, as the draft
  /// expects (§6.3): the session's liveness decides instead.
  ///
  /// A family sign-out ends the device session: revoking a device secret at the revocation endpoint,
  /// the end-session endpoint with an ID token of the session, or ``TestProvider/endDeviceSession(_:)``.
  ///
  /// ```swift
  /// var configuration = TestProvider.Configuration()
  /// configuration.nativeSSO.rotatesDeviceSecretOnExchange = true
  /// ```
  public struct NativeSSOSettings: Sendable, Hashable {
    /// Whether the provider serves Native SSO: it advertises `native_sso_supported`, issues device
    /// secrets for `device_sso`, and exchanges ID tokens. When `false`, `device_sso` is an ordinary
    /// scope and an ID token exchange is refused.
    public var isSupported = true
    /// The `actor_token_type`s accepted for a device secret: the draft's
    /// ``/Xid/TokenTypeIdentifier/deviceSecret``; add ``/Xid/TokenTypeIdentifier/legacyDeviceSecret``
    /// (or use it alone) to play a provider of the older drafts, such as Okta.
    public var deviceSecretTypes: Set<TokenTypeIdentifier> = [.deviceSecret]
    /// Whether each exchange answers with a new device secret (and retires the one it was sent).
    public var rotatesDeviceSecretOnExchange = false
    /// Whether each refresh that is sent a valid device secret answers with a new one (and retires
    /// it), which the draft allows but does not recommend (§3.4.3).
    public var rotatesDeviceSecretOnRefresh = false
    /// How long a device secret is valid; `nil` for as long as its session lives.
    public var deviceSecretLifetime: Duration? = nil
    /// Whether ending a device session also revokes every grant of the session, every app's refresh
    /// tokens included, as draft 07 §4.3 requires ("all refresh_tokens associated with it MUST be
    /// invalidated"). Turn it off to test a client that must notice a family sign-out on its own.
    public var endsGrantsWithDeviceSession = true
    /// Scopes that need the user's explicit consent: an exchange that asks for one is answered
    /// `interaction_required` (draft 07 §4.3, §4.4).
    public var consentRequiredScopes: Set<String> = []

    /// The default: supported, the draft's device secret type, no rotation, no expiry, grants ended
    /// with their device session.
    public init() {}
  }
}
