import Foundation

/// What the user can do about a failed token request, for places that can only show a message: App
/// Intents, widgets, notifications. (`XidAppIntents` turns it into a dialog.)
package enum XidUserAction: Sendable, Hashable {
  /// Sign in again, in the app: nobody is signed in, the provider ended the session, or the user
  /// closed the sign-in page.
  case signIn
  /// Unlock the device: the tokens cannot be read while it is locked. The user is still signed in.
  case unlockDevice
  /// Try again later: the network or the provider failed for now. The user is still signed in.
  case tryAgainLater
  /// Open the app and unlock the session there: the session lock is closed. The user is still signed
  /// in.
  case unlockSession
  /// Open the app and confirm it's them there (Face ID, Touch ID, Optic ID or the passcode): a refresh
  /// needs the user, or a prompt did not succeed. The user is still signed in.
  case confirmPresence
  /// Open the app and sign in again there, more strongly or more recently: a server asks for a step-up
  /// (RFC 9470). The user is still signed in.
  case stepUp
  /// Nothing the user can do here: a configuration or provider problem, for the developer to fix.
  case none
}

extension XidError {
  /// What the user can do about this error.
  package var userAction: XidUserAction {
    switch code {
    case .signInRequired, .sessionExpired, .refreshRefused, .userCancelled, .presenceKeyInvalidated,
      .foreignTokenResponse, .dpopKeyUnavailable:
      return .signIn
    case .sessionLocked:
      return .unlockSession
    case .stepUpRequired:
      return .stepUp
    case .userPresenceRequired, .authenticationCancelled, .authenticationFailed, .authenticationFallback,
      .authenticationInterrupted, .passcodeNotSet, .biometryUnavailable, .biometryNotEnrolled, .biometryLockout:
      return .confirmPresence
    case .storageLocked:
      return .unlockDevice
    case .networkFailure, .lockTimeout, .timedOut, .discoveryFailed, .keySetUnavailable, .unknownSigningKey:
      return .tryAgainLater
    default:
      return isTransient ? .tryAgainLater : .none
    }
  }
}
