#if canImport(AppIntents)
  import AppIntents
  import Foundation
  import Xid

  /// What an `AppIntent` needs from Xid: a valid access token in `perform()`, and messages the user
  /// can act on when there is none, in the app and in an App Intents extension alike.
  ///
  /// Configure `Xid.shared` in every process that runs intents (the app, and each extension) with the
  /// same configuration and a `KeychainTokenStorage` shared through a keychain access group and an
  /// App Group, as `docs/app-extensions.md` shows. Then, in `perform()`:
  ///
  /// ```swift
  /// import AppIntents
  /// import Xid
  /// import XidAppIntents
  ///
  /// struct UnreadCountIntent: AppIntent {
  ///   static var title: LocalizedStringResource { "Unread Messages" }
  ///
  ///   func perform() async throws -> some IntentResult & ProvidesDialog {
  ///     try SharedAccount.configure()  // once per process: Xid.shared with the shared storage
  ///     // Throws an XidIntentError when the user must sign in, unlock, or try later: App Intents
  ///     // shows its message ("You're not signed in. Open the app to sign in, then try again.").
  ///     let response = try await XidIntentSupport.send(
  ///       HTTPRequest(url: URL(string: "https://api.example.com/v1/unread")!))
  ///     guard response.isSuccess, let count = Int(String(decoding: response.body, as: UTF8.self)) else {
  ///       return .result(dialog: "The server did not answer. Try again later.")
  ///     }
  ///     return .result(dialog: "You have \(count) unread messages.")
  ///   }
  /// }
  /// ```
  ///
  /// An intent that rather finishes with a dialog than fails catches the error:
  ///
  /// ```swift
  /// do {
  ///   let token = try await XidIntentSupport.accessToken()
  ///   …
  /// } catch let error as XidIntentError {
  ///   return .result(dialog: error.dialog)
  /// }
  /// ```
  ///
  /// In the app's own process an intent can go further and sign the user in: adopt
  /// `ForegroundContinuableIntent` and call ``AppIntents/ForegroundContinuableIntent/xidAccessToken(from:dialog:signIn:unlockReason:)``,
  /// which asks the user to continue in the app, signs in there and carries on. An extension cannot
  /// show the sign-in page; it tells the user to open the app.
  ///
  /// What the user is told, by ``XidIntentError/Reason``:
  ///
  /// - ``XidIntentError/Reason/signInRequired``: open the app to sign in.
  /// - ``XidIntentError/Reason/deviceLocked``: unlock and try again. With the default
  ///   `afterFirstUnlockThisDeviceOnly` keychain items this happens only between a restart and the
  ///   first unlock (or in a process prewarmed then); for intents whose tokens are stored
  ///   `whenUnlockedThisDeviceOnly`, set `static var authenticationPolicy: IntentAuthenticationPolicy`
  ///   to `.requiresAuthentication` so that the system asks for the unlock first.
  /// - ``XidIntentError/Reason/sessionLocked``: the app's session lock is closed (in the intent's
  ///   process: an intent in an extension that configures no lock never sees it); open the app to
  ///   unlock. Never a sign-out.
  /// - ``XidIntentError/Reason/userPresenceRequired``: a refresh of a protected refresh token needs
  ///   Face ID, Touch ID or the passcode; open the app.
  /// - ``XidIntentError/Reason/temporarilyUnavailable``: try again later.
  /// - ``XidIntentError/Reason/accountUnavailable``: anything else (a missing keychain entitlement,
  ///   a misconfigured provider); the ``XidIntentError/underlyingError`` says what.
  ///
  /// Cancellation is passed through unchanged, and errors that are not `XidError`s (your own
  /// code's, inside ``run(_:)``) too.
  @available(iOS 16.0, macOS 13.0, watchOS 9.0, tvOS 16.0, *)
  public enum XidIntentSupport {
    /// A valid access token of `xid`'s session, refreshed first when it expires soon.
    ///
    /// - Parameters:
    ///   - xid: the configured instance, by default `Xid.shared`.
    ///   - forceRefresh: refresh even a valid token (after the API answered 401).
    /// - Throws: ``XidIntentError`` for every `XidError` (see ``XidIntentError/Reason``);
    ///   `CancellationError` when the intent was cancelled.
    public static func accessToken(from xid: Xid = .shared, forceRefresh: Bool = false) async throws -> String {
      try await run { try await xid.getAccessToken(forceRefresh: forceRefresh) }
    }

    /// Sends `request` with the access token attached, refreshing the token once if the server
    /// refuses it (`Xid.send(_:)`).
    ///
    /// - Throws: ``XidIntentError`` for every `XidError`, network failures included.
    public static func send(_ request: HTTPRequest, with xid: Xid = .shared) async throws -> HTTPResponse {
      try await run { try await xid.send(request) }
    }

    /// Runs `body` and turns the `XidError`s it throws into ``XidIntentError``s, except
    /// `XidError.Code.cancelled`; other errors pass through unchanged.
    ///
    /// ```swift
    /// let items = try await XidIntentSupport.run {
    ///   try await api.items(token: Xid.shared.getAccessToken())
    /// }
    /// ```
    public static func run<Value>(_ body: () async throws -> sending Value) async throws -> sending Value {
      do {
        return try await body()
      } catch let error as XidError where error.code != .cancelled {
        throw XidIntentError(error)
      }
    }
  }

  @available(iOS 16.4, macOS 13.3, watchOS 9.4, tvOS 16.4, *)
  @available(iOSApplicationExtension, unavailable)
  @available(macCatalystApplicationExtension, unavailable)
  @available(macOSApplicationExtension, unavailable)
  @available(watchOSApplicationExtension, unavailable)
  @available(tvOSApplicationExtension, unavailable)
  extension ForegroundContinuableIntent {
    /// A valid access token; when the user must sign in first, asks them to continue in the app,
    /// signs in there, and returns the new session's token, so that `perform()` carries on. When the
    /// session lock is closed, or a refresh needs the user, it asks them to continue in the app and
    /// unlocks there (showing `unlockReason`) instead.
    ///
    /// For intents that run in the app's process (not in an extension, where the sign-in page cannot
    /// be shown):
    ///
    /// ```swift
    /// struct UnreadCountIntent: AppIntent, ForegroundContinuableIntent {
    ///   static var title: LocalizedStringResource { "Unread Messages" }
    ///
    ///   func perform() async throws -> some IntentResult & ProvidesDialog {
    ///     let token = try await xidAccessToken()
    ///     let count = try await API.unreadCount(token: token)
    ///     return .result(dialog: "You have \(count) unread messages.")
    ///   }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - xid: the configured instance, by default `Xid.shared`.
    ///   - dialog: what to ask the user; by default the ``XidIntentError/Reason/signInRequired``
    ///     message.
    ///   - signIn: runs on the main actor once the app is in the foreground; by default
    ///     `xid.signIn()` with the configuration's user agent.
    ///   - unlockReason: what the Face ID, Touch ID or passcode prompt says; by default the text under
    ///     `xid.intent.unlockReason` ("Unlock your account to continue.").
    /// - Throws: ``XidIntentError`` (``XidIntentError/Reason/signInRequired`` when the user closed the
    ///   sign-in page), or the error App Intents throws when the user declines to continue.
    public func xidAccessToken(
      from xid: Xid = .shared, dialog: IntentDialog? = nil,
      signIn: (@MainActor @Sendable () async throws -> Void)? = nil, unlockReason: String? = nil
    ) async throws -> String {
      do {
        return try await XidIntentSupport.accessToken(from: xid)
      } catch let error as XidIntentError
        where error.reason == .sessionLocked || error.reason == .userPresenceRequired
      {
        let reason =
          unlockReason
          ?? String(
            localized: LocalizedStringResource(
              "xid.intent.unlockReason", defaultValue: "Unlock your account to continue.",
              comment: "The Face ID, Touch ID or passcode prompt an App Intent shows in the app."))
        return try await XidIntentSupport.run {
          try await requestToContinueInForeground(dialog ?? error.dialog) {
            // The app is in the foreground now, whatever it has reported: prompts may be shown.
            xid.setScenePhase(.active)
            try await xid.unlock(localizedReason: reason)
            return try await xid.getAccessToken()
          }
        }
      } catch let error as XidIntentError where error.reason == .signInRequired {
        let signIn = signIn ?? { _ = try await xid.signIn() }
        try await XidIntentSupport.run {
          try await requestToContinueInForeground(dialog ?? error.dialog) { try await signIn() }
        }
        return try await XidIntentSupport.accessToken(from: xid)
      }
    }
  }
#endif
