/// What needs the user to be present (Face ID, Touch ID, Optic ID or the passcode): the options of
/// ``XidConfiguration/presence``. Everything is off by default.
///
/// ```swift
/// var configuration = XidConfiguration(issuer: issuer, clientId: "my-app", redirectUri: redirectUri)
/// configuration.presence = PresenceOptions(
///   sessionLock: .biometryWithPasscodeFallback, relockAfterBackground: .seconds(60),
///   refreshTokenProtection: .biometryCurrentSet)
/// ```
///
/// - A **session lock** (``sessionLock``) keeps this process from handing out tokens, claims or
///   authorized requests until ``SessionEngine/unlock(localizedReason:)`` succeeds. It lives in one
///   process: each process that configures it unlocks on its own. Extensions usually leave it off.
/// - A **protected refresh token** (``refreshTokenProtection``) is sealed in the stored record with a
///   key whose private half needs the user, so every refresh asks them; access tokens stay usable
///   until they expire.
/// - A **protected DPoP key** (``protectsDPoPKey``), the stricter mode: the key the tokens are bound
///   to needs the user too, so every API call asks them (one prompt per call, or one per
///   ``authenticationReuse``). App extensions and widgets cannot use it.
///
/// `docs/local-authentication.md` explains what each option protects against and what the user sees.
public struct PresenceOptions: Sendable {
  /// The session lock's requirement; `nil` (the default) for no lock.
  public var sessionLock: PresenceRequirement?
  /// How long the app may stay in the background before the session lock closes again; `nil` (the
  /// default) to stay open until ``SessionEngine/lock()``, `.zero` to close as soon as the app leaves.
  /// The app reports its scene phase with ``SessionEngine/setScenePhase(_:)``. The time is the time
  /// that passed (``XidClock/monotonicNow``, counting while the device sleeps): setting the device's
  /// date back or forward changes nothing.
  public var relockAfterBackground: Duration?
  /// Seal the refresh token with a key that needs the user, by this requirement; `nil` (the default)
  /// to store it as it is.
  public var refreshTokenProtection: PresenceRequirement?
  /// How long one confirmation of the user's presence is used again without a new prompt (to open
  /// the sealed refresh token and, with ``protectsDPoPKey``, to sign DPoP proofs), after which Xid
  /// invalidates it (`LAContext.invalidate()`); `.zero` (the default) asks at every refresh (and every
  /// call in the stricter mode). At most one hour.
  public var authenticationReuse: Duration
  /// What the prompt says when Xid needs the user: at a refresh, and with ``protectsDPoPKey`` at every
  /// API call. In the user's language; not empty.
  public var refreshReason: String
  /// The stricter mode, "every API call needs the user": the session's DPoP key is made with the
  /// access control of ``refreshTokenProtection`` (in the Secure Enclave: `.privateKeyUsage` and the
  /// requirement's flags), so that every DPoP proof, and so every request, refresh and sign-in,
  /// needs the user. One prompt covers one call: a ``SessionEngine/send(_:)`` that refreshes first
  /// opens the refresh token and signs both proofs with one evaluated context.
  ///
  /// Needs ``XidConfiguration/usesDPoP`` and ``refreshTokenProtection`` (whose requirement it takes).
  /// App extensions and widgets cannot show the prompt: their calls fail with
  /// ``XidError/Code/userPresenceRequired``, as calls from the app in the background do.
  ///
  /// Changing it does not change an existing session's key, which is fixed in hardware: turning it
  /// on refuses a session whose key signs without the user (``XidError/Code/dpopKeyUnavailable``,
  /// sign the user in again); turning it off keeps asking for such a session's key until the user
  /// signs in again. The default is `false`.
  public var protectsDPoPKey: Bool
  /// Who opens the session lock; `nil` for the platform's (`LocalAuthenticationAuthorizer`, an
  /// `LARight`, on Apple platforms). Elsewhere, and in tests, set one. On Linux it also guards the
  /// software keys.
  public var authorizer: (any PresenceAuthorizer)?
  /// Where the key that seals the refresh token lives; `nil` for the platform's (the Secure Enclave on
  /// Apple platforms, ``SoftwarePresenceKeyStore`` in the token storage elsewhere). When it is also a
  /// ``PresenceSigningKeyStore``, as the platform's are, it makes and signs with the DPoP keys of
  /// ``protectsDPoPKey`` too; that mode needs one.
  public var keyStore: (any PresenceSealingKeyStore)?

  /// The prompt's text when ``refreshReason`` is not set.
  public static let defaultRefreshReason = "Confirm it's you to stay signed in."

  /// Creates the options; with no arguments, nothing needs the user.
  public init(
    sessionLock: PresenceRequirement? = nil, relockAfterBackground: Duration? = nil,
    refreshTokenProtection: PresenceRequirement? = nil, authenticationReuse: Duration = .zero,
    refreshReason: String = PresenceOptions.defaultRefreshReason, protectsDPoPKey: Bool = false,
    authorizer: (any PresenceAuthorizer)? = nil, keyStore: (any PresenceSealingKeyStore)? = nil
  ) {
    self.sessionLock = sessionLock
    self.relockAfterBackground = relockAfterBackground
    self.refreshTokenProtection = refreshTokenProtection
    self.authenticationReuse = authenticationReuse
    self.refreshReason = refreshReason
    self.protectsDPoPKey = protectsDPoPKey
    self.authorizer = authorizer
    self.keyStore = keyStore
  }

  /// Checks the options; ``XidConfiguration/validate()`` calls it, and also checks that
  /// ``protectsDPoPKey`` comes with ``XidConfiguration/usesDPoP``.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` with what to change.
  public func validate() throws {
    if protectsDPoPKey, refreshTokenProtection == nil {
      throw XidError(
        .invalidConfiguration,
        "PresenceOptions.protectsDPoPKey takes its requirement from refreshTokenProtection: set refreshTokenProtection too (for example .biometryCurrentSet)"
      )
    }
    if let relockAfterBackground {
      guard sessionLock != nil else {
        throw XidError(.invalidConfiguration, "PresenceOptions.relockAfterBackground needs a sessionLock requirement")
      }
      guard relockAfterBackground >= .zero else {
        throw XidError(.invalidConfiguration, "PresenceOptions.relockAfterBackground must not be negative")
      }
    }
    guard authenticationReuse >= .zero, authenticationReuse <= .seconds(3600) else {
      throw XidError(.invalidConfiguration, "PresenceOptions.authenticationReuse must be between 0 and 3600 seconds")
    }
    guard !refreshReason.isEmpty else {
      throw XidError(
        .invalidConfiguration,
        "PresenceOptions.refreshReason is empty; LocalAuthentication needs a reason to show in the prompt")
    }
  }
}
