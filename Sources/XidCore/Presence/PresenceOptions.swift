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
///
/// `docs/local-authentication.md` explains what each option protects against and what the user sees.
public struct PresenceOptions: Sendable {
  /// The session lock's requirement; `nil` (the default) for no lock.
  public var sessionLock: PresenceRequirement?
  /// How long the app may stay in the background before the session lock closes again; `nil` (the
  /// default) to stay open until ``SessionEngine/lock()``, `.zero` to close as soon as the app leaves.
  /// The app reports its scene phase with ``SessionEngine/setScenePhase(_:)``.
  public var relockAfterBackground: Duration?
  /// Seal the refresh token with a key that needs the user, by this requirement; `nil` (the default)
  /// to store it as it is.
  public var refreshTokenProtection: PresenceRequirement?
  /// How long one confirmation of the user's presence opens the sealed refresh token again without a
  /// new prompt, after which Xid invalidates it (`LAContext.invalidate()`); `.zero` (the default) asks
  /// at every refresh. At most one hour.
  public var authenticationReuse: Duration
  /// What the prompt says when a refresh needs the user, in the user's language. Not empty.
  public var refreshReason: String
  /// The stricter mode where the DPoP key itself needs the user, so that every API call does (App
  /// Intents and widgets then never work). Refused until Xid supports DPoP.
  public var protectsDPoPKey: Bool
  /// Who opens the session lock; `nil` for the platform's (`LocalAuthenticationAuthorizer`, an
  /// `LARight`, on Apple platforms). Elsewhere, and in tests, set one. On Linux it also guards the
  /// software keys.
  public var authorizer: (any PresenceAuthorizer)?
  /// Where the key that seals the refresh token lives; `nil` for the platform's (the Secure Enclave on
  /// Apple platforms, ``SoftwarePresenceKeyStore`` in the token storage elsewhere).
  public var keyStore: (any PresenceKeyStore)?

  /// The prompt's text when ``refreshReason`` is not set.
  public static let defaultRefreshReason = "Confirm it's you to stay signed in."

  /// Creates the options; with no arguments, nothing needs the user.
  public init(
    sessionLock: PresenceRequirement? = nil, relockAfterBackground: Duration? = nil,
    refreshTokenProtection: PresenceRequirement? = nil, authenticationReuse: Duration = .zero,
    refreshReason: String = PresenceOptions.defaultRefreshReason, protectsDPoPKey: Bool = false,
    authorizer: (any PresenceAuthorizer)? = nil, keyStore: (any PresenceKeyStore)? = nil
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

  /// Checks the options; ``XidConfiguration/validate()`` calls it.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` with what to change.
  public func validate() throws {
    if protectsDPoPKey {
      throw XidError(
        .invalidConfiguration,
        "PresenceOptions.protectsDPoPKey needs DPoP, which this version of Xid does not support yet; use refreshTokenProtection instead"
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
