#if canImport(AppIntents)
  import AppIntents
  import Foundation
  import Xid

  /// Why an App Intent could not use the user's session, and what to tell the user about it.
  ///
  /// App Intents shows a thrown error's ``localizedStringResource`` to the user (Siri speaks it,
  /// Shortcuts and Spotlight display it), so an intent can simply let it propagate from `perform()`;
  /// an intent that prefers to finish normally returns ``dialog`` with `.result(dialog:)`. Nothing
  /// in the message comes from the server or contains a token.
  ///
  /// The texts are looked up in the main bundle of the running process (the app, or the extension)
  /// under the keys `xid.intent.signInRequired`, `xid.intent.deviceLocked`,
  /// `xid.intent.temporarilyUnavailable`, `xid.intent.accountUnavailable`, `xid.intent.sessionLocked`,
  /// `xid.intent.userPresenceRequired` and `xid.intent.stepUpRequired`: add them to the
  /// target's string catalog to translate or reword them.
  @available(iOS 16.0, macOS 13.0, watchOS 9.0, tvOS 16.0, *)
  public struct XidIntentError: Error, Hashable, CustomLocalizedStringResourceConvertible, CustomStringConvertible {
    /// What the user can do.
    public enum Reason: String, Sendable, Hashable {
      /// Nobody is signed in, or the provider ended the session: the user opens the app and signs in.
      case signInRequired
      /// The device is locked and the tokens cannot be read until it is unlocked (or, right after a
      /// restart, until the first unlock). The user is still signed in.
      case deviceLocked
      /// The network or the provider failed for now. The user is still signed in; try again later.
      case temporarilyUnavailable
      /// The app's session lock is closed (`XidError.Code.sessionLocked`): the user opens the app and
      /// unlocks it there. The user is still signed in; this is never a sign-out.
      case sessionLocked
      /// The user must confirm it's them (Face ID, Touch ID, Optic ID or the passcode) before the
      /// session can be refreshed, and no prompt can be shown here: the user opens the app. The user
      /// is still signed in.
      case userPresenceRequired
      /// A server asks for a stronger or more recent sign-in (`XidError.Code.stepUpRequired`, RFC
      /// 9470), which needs the provider's page: the user opens the app, which signs in again with
      /// `SignInOptions(stepUp:)`. The user is still signed in.
      case stepUpRequired
      /// Anything else: a configuration or provider problem the user cannot fix here. The
      /// ``XidIntentError/underlyingError`` says what; log it for yourself.
      case accountUnavailable
    }

    /// What the user can do.
    public let reason: Reason
    /// The error Xid threw.
    public let underlyingError: XidError

    /// Classifies `error`: ``Reason/signInRequired`` for `XidError.Code.signInRequired`,
    /// `XidError.Code.sessionExpired`, `XidError.Code.userCancelled` and
    /// `XidError.Code.presenceKeyInvalidated`, ``Reason/deviceLocked`` for
    /// `XidError.Code.storageLocked`, ``Reason/sessionLocked`` for `XidError.Code.sessionLocked`,
    /// ``Reason/userPresenceRequired`` for `XidError.Code.userPresenceRequired` and the other
    /// presence codes, ``Reason/stepUpRequired`` for `XidError.Code.stepUpRequired`,
    /// ``Reason/temporarilyUnavailable`` for network, server and lock-wait failures,
    /// ``Reason/accountUnavailable`` for the rest.
    public init(_ error: XidError) {
      underlyingError = error
      reason =
        switch error.userAction {
        case .signIn: .signInRequired
        case .unlockDevice: .deviceLocked
        case .tryAgainLater: .temporarilyUnavailable
        case .unlockSession: .sessionLocked
        case .confirmPresence: .userPresenceRequired
        case .stepUp: .stepUpRequired
        case .none: .accountUnavailable
        }
    }

    /// The message for the user, in the process's main bundle (see the type's discussion).
    public var localizedStringResource: LocalizedStringResource {
      switch reason {
      case .signInRequired:
        LocalizedStringResource(
          "xid.intent.signInRequired", defaultValue: "You're not signed in. Open the app to sign in, then try again.",
          comment: "An App Intent needs the user to sign in in the app first.")
      case .deviceLocked:
        LocalizedStringResource(
          "xid.intent.deviceLocked", defaultValue: "Unlock your device, then try again.",
          comment: "An App Intent cannot read the account while the device is locked.")
      case .temporarilyUnavailable:
        LocalizedStringResource(
          "xid.intent.temporarilyUnavailable", defaultValue: "Can't connect right now. Try again later.",
          comment: "An App Intent could not reach the server; the user is still signed in.")
      case .sessionLocked:
        LocalizedStringResource(
          "xid.intent.sessionLocked",
          defaultValue: "Your account is locked. Open the app to unlock it, then try again.",
          comment: "An App Intent found the app's session lock closed; the user is still signed in.")
      case .userPresenceRequired:
        LocalizedStringResource(
          "xid.intent.userPresenceRequired", defaultValue: "Open the app to confirm it's you, then try again.",
          comment: "Refreshing the account needs Face ID, Touch ID or the passcode, which the intent cannot ask for.")
      case .stepUpRequired:
        LocalizedStringResource(
          "xid.intent.stepUpRequired", defaultValue: "Open the app to sign in again, then try again.",
          comment: "The server asks for a stronger or more recent sign-in, which only the app can show.")
      case .accountUnavailable:
        LocalizedStringResource(
          "xid.intent.accountUnavailable", defaultValue: "Couldn't access your account. Open the app, then try again.",
          comment: "An App Intent failed for a reason the user cannot fix from the intent.")
      }
    }

    /// The message as a dialog, for `.result(dialog:)` or `needsToContinueInForegroundError(_:)`.
    public var dialog: IntentDialog { IntentDialog(localizedStringResource) }

    /// `XidIntentError(<reason>): <the underlying error>`, for logs; free of token material.
    public var description: String { "XidIntentError(\(reason.rawValue)): \(underlyingError)" }
  }
#endif
