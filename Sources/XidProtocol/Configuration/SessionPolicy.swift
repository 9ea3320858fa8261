/// How the session behaves: the leeways and timeouts it applies, whether its tokens are bound to the
/// device (DPoP) and what needs the user's presence, and which of the provider's deviations it
/// accepts.
///
/// Every default is the safe one; ``validate()`` checks the ranges.
public struct SessionPolicy: Sendable {
  /// Whether to push authorization requests (RFC 9126) when the provider offers it; Xid always does
  /// when the provider requires it.
  public var prefersPushedAuthorization: Bool
  /// The clock skew tolerated when validating ID tokens (`exp`, `iat`, `auth_time`); 0 to 600 seconds.
  public var clockSkewLeeway: Duration
  /// How long before its expiry an access token already counts as expired, so that a token handed
  /// out is still valid when the request reaches the server.
  public var expiryLeeway: Duration
  /// How long fetched provider metadata is reused before it is fetched again.
  public var metadataLifetime: Duration
  /// How long a process waits for another one that is refreshing the same account, measured on the
  /// configuration's clock and in real time (whichever passes first). A sign-out and a sign-in's
  /// save never fail for it: they write at once, then wait at most this long to check, once the
  /// refresh is done, that it did not write just after them.
  public var refreshLockTimeout: Duration
  /// How long Xid waits for the provider's answer to a request (discovery, keys, token, revocation,
  /// UserInfo, device authorization) before it gives up with ``XidError/Code/networkFailure``,
  /// measured on the configuration's clock. The transport's own timeout applies as well. A refresh
  /// holds the account's lock while it waits, so other processes may meanwhile give up with
  /// ``XidError/Code/lockTimeout`` after ``refreshLockTimeout``: both keep the session.
  public var requestTimeout: Duration
  /// Whether the session's tokens are bound to a key of this device with DPoP (RFC 9449); off by
  /// default. When on, every request that carries an access token sends it as
  /// `Authorization: DPoP …` with a `DPoP` proof, so **the resource servers the app calls must accept
  /// DPoP-bound tokens**, and `offline_access` may be requested. See docs/dpop.md.
  public var usesDPoP: Bool
  /// What needs the user to be present: a session lock, a refresh token sealed with a key that needs
  /// them. Nothing by default; see ``PresenceOptions``.
  public var presence: PresenceOptions
  /// The provider's deviations from the standards that Xid accepts; none by default.
  public var providerQuirks: ProviderQuirks
  /// How the provider derives the `ds_hash` of an ID token from the device secret issued with it
  /// (OpenID Connect Native SSO for Mobile Apps 1.0, draft 07 §3.4.1), which
  /// ``OpenIDClient/checkDeviceSecret(_:boundTo:)`` checks: ``DeviceSecretHashRule/providerDefined``
  /// by default, which requires `ds_hash` without recomputing it, since the draft leaves the
  /// derivation to the provider. Set ``DeviceSecretHashRule/atHashRule`` only for a provider that
  /// documents that derivation (`XidTesting`'s does).
  public var deviceSecretHashRule: DeviceSecretHashRule

  /// Creates a policy; every parameter has the safe default.
  ///
  /// - Parameters:
  ///   - prefersPushedAuthorization: use RFC 9126 pushed authorization requests when offered.
  ///   - clockSkewLeeway: the clock skew allowed for ID token times, 60 seconds by default.
  ///   - expiryLeeway: how early an access token counts as expired, 60 seconds by default.
  ///   - metadataLifetime: how long provider metadata is cached, one hour by default.
  ///   - refreshLockTimeout: how long to wait for another process's refresh, 10 seconds by default.
  ///   - requestTimeout: how long to wait for the provider's answer, 30 seconds by default.
  ///   - usesDPoP: bind the tokens to a key of this device (RFC 9449); off by default.
  ///   - presence: what needs the user to be present; nothing by default.
  ///   - providerQuirks: the provider's deviations from the standards to accept; none by default.
  ///   - deviceSecretHashRule: how the provider derives `ds_hash` (Native SSO); unknown by default.
  public init(
    prefersPushedAuthorization: Bool = false, clockSkewLeeway: Duration = .seconds(60),
    expiryLeeway: Duration = .seconds(60), metadataLifetime: Duration = .seconds(3600),
    refreshLockTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30), usesDPoP: Bool = false,
    presence: PresenceOptions = PresenceOptions(), providerQuirks: ProviderQuirks = [],
    deviceSecretHashRule: DeviceSecretHashRule = .providerDefined
  ) {
    self.prefersPushedAuthorization = prefersPushedAuthorization
    self.clockSkewLeeway = clockSkewLeeway
    self.expiryLeeway = expiryLeeway
    self.metadataLifetime = metadataLifetime
    self.refreshLockTimeout = refreshLockTimeout
    self.requestTimeout = requestTimeout
    self.usesDPoP = usesDPoP
    self.presence = presence
    self.providerQuirks = providerQuirks
    self.deviceSecretHashRule = deviceSecretHashRule
  }

  /// Checks the policy's ranges and that its options fit together.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` with what to change: a leeway or timeout out of
  ///   range, presence options that are not valid (see ``PresenceOptions/validate()``), or a protected
  ///   DPoP key without DPoP.
  public func validate() throws {
    guard clockSkewLeeway >= .zero, clockSkewLeeway <= .seconds(600) else {
      throw XidError(.invalidConfiguration, "the clock skew leeway must be between 0 and 600 seconds")
    }
    guard requestTimeout > .zero else {
      throw XidError(.invalidConfiguration, "the request timeout must be positive")
    }
    guard expiryLeeway >= .zero else {
      throw XidError(.invalidConfiguration, "the expiry leeway must not be negative")
    }
    try presence.validate()
    if presence.protectsDPoPKey && !usesDPoP {
      throw XidError(
        .invalidConfiguration,
        "PresenceOptions.protectsDPoPKey protects the session's DPoP key, and DPoP is off: turn on XidConfiguration.usesDPoP, or turn protectsDPoPKey off"
      )
    }
  }
}
