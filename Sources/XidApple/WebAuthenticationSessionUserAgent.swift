#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
  import AuthenticationServices
  import Foundation
  import XidCore
  #if canImport(UIKit)
    import UIKit
  #elseif canImport(AppKit)
    import AppKit
  #endif

  /// Sign-in for iOS, macOS and visionOS apps: the provider's page in an `ASWebAuthenticationSession`,
  /// the system's secure in-app browser, which hands the redirect straight back to Xid.
  ///
  /// It is the default user agent on iOS and visionOS, and on macOS for redirect URIs other than
  /// loopback ones. Register the redirect URI's private-use scheme at the provider; the app needs no
  /// URL type in its Info.plist for it, since the session itself receives the redirect. A claimed
  /// `https` redirect URI works from iOS 17.4 and macOS 14.4 on, with its host in the app's associated
  /// domains (`webcredentials:`).
  ///
  /// ```swift
  /// var configuration = XidConfiguration(
  ///   issuer: URL(string: "https://accounts.example.com")!, clientId: "my-app",
  ///   redirectUri: URL(string: "com.example.app:/oauth/callback")!)
  /// configuration.parts.userAgent = WebAuthenticationSessionUserAgent(prefersEphemeralWebBrowserSession: false)
  /// Xid.shared.configure(options: configuration)
  /// do {
  ///   try await Xid.shared.signIn()
  /// } catch let error as XidError where error.code == .userCancelled {
  ///   // The user closed the page: stay on the sign-in screen, show nothing.
  /// }
  /// ```
  ///
  /// The sign-in throws ``XidError/Code/userCancelled`` when the user closes the page or declines the
  /// system's prompt, ``XidError/Code/cancelled`` when its task is cancelled (the page is closed),
  /// ``XidError/Code/presentationFailed`` when there is no window to show it from, and
  /// ``XidError/Code/signInInProgress`` while another of Xid's pages is on screen: one at a time.
  /// There is no time limit: the page stays until the user finishes or closes it.
  public struct WebAuthenticationSessionUserAgent: AuthorizationUserAgent {
    /// Whether the page runs in an ephemeral browser session, which shares no cookies with Safari:
    /// the user signs in every time, and the system does not ask "“App” wants to use “example.com” to
    /// sign in". `true` by default; `false` lets the user reuse a session they have at the provider in
    /// Safari (single sign-on).
    ///
    /// The end-session page of ``Xid/signOut(callEndSession:)`` uses the same setting, so that it
    /// sees the provider's cookies exactly when the sign-in did.
    public var prefersEphemeralWebBrowserSession: Bool
    /// The window the page is presented over.
    public var presentationAnchor: PresentationAnchor

    /// Creates the user agent.
    ///
    /// - Parameters:
    ///   - prefersEphemeralWebBrowserSession: whether to share no cookies with Safari (the default).
    ///   - presentationAnchor: the window the page is presented over; by default the key window of
    ///     the app's foreground scene.
    public init(prefersEphemeralWebBrowserSession: Bool = true, presentationAnchor: PresentationAnchor = .keyWindow) {
      self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
      self.presentationAnchor = presentationAnchor
    }

    /// Checks that a web authentication session can receive `redirectUri` and returns the sign-in.
    ///
    /// - Throws: ``XidError/Code/invalidConfiguration`` for a loopback `http` redirect URI (use
    ///   ``LoopbackUserAgent``), or a claimed `https` one before iOS 17.4 and macOS 14.4.
    public func prepare(redirectUri: URL) async throws -> any AuthorizationUserAgentSession {
      try flow.prepare(redirectUri: redirectUri)
    }

    /// Shows the provider's end-session page in a web authentication session, until the provider
    /// redirects to the post-logout redirect URI or the user closes the page.
    ///
    /// - Throws: ``XidError/Code/presentationFailed`` when the page could not be shown.
    public func open(_ url: URL) async throws {
      try await flow.open(url)
    }

    private var flow: WebAuthenticationFlow {
      let ephemeral = prefersEphemeralWebBrowserSession
      let anchor = presentationAnchor
      return WebAuthenticationFlow(httpsCallbackAvailable: Self.httpsCallbackAvailable) { url, callback in
        await WebAuthenticationPresentation.present(url, callback: callback, ephemeral: ephemeral, anchor: anchor)
      }
    }

    /// Whether this system matches claimed `https` callbacks.
    static var httpsCallbackAvailable: Bool {
      if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) { return true }
      return false
    }
  }

  extension WebAuthenticationSessionUserAgent {
    /// Where the sign-in page is presented: a window, or an object that answers
    /// `ASWebAuthenticationPresentationContextProviding`.
    public struct PresentationAnchor: Sendable {
      fileprivate enum Source: Sendable {
        case window(@MainActor @Sendable () -> ASPresentationAnchor?)
        case contextProvider(ContextProviderReference)
      }

      fileprivate let source: Source

      /// The window `window` returns when the page is about to be shown, on the main actor; `nil`
      /// fails the sign-in with ``XidError/Code/presentationFailed``.
      public init(_ window: @escaping @MainActor @Sendable () -> ASPresentationAnchor?) {
        source = .window(window)
      }

      /// The key window of the app's foreground scene (on macOS, the app's key window): the default.
      public static var keyWindow: PresentationAnchor {
        PresentationAnchor { WebAuthenticationPresentation.foregroundKeyWindow() }
      }

      /// The anchor `provider` returns, as `ASWebAuthenticationSession` would ask it. Like the session,
      /// Xid holds the provider weakly: keep it alive (a view controller on screen) while signing in.
      @MainActor
      public static func contextProvider(
        _ provider: any ASWebAuthenticationPresentationContextProviding
      ) -> PresentationAnchor {
        PresentationAnchor(source: .contextProvider(ContextProviderReference(provider)))
      }

      private init(source: Source) { self.source = source }
    }
  }

  /// A weak reference to the app's context provider, kept on the main actor.
  @MainActor
  private final class ContextProviderReference {
    weak var provider: (any ASWebAuthenticationPresentationContextProviding)?
    init(_ provider: any ASWebAuthenticationPresentationContextProviding) { self.provider = provider }
  }

  /// Answers the session with the window found before it started.
  private final class WindowContextProvider: NSObject, ASWebAuthenticationPresentationContextProviding {
    private let window: ASPresentationAnchor
    init(_ window: ASPresentationAnchor) { self.window = window }
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor { window }
  }

  /// One `ASWebAuthenticationSession` on screen, created, started and ended on the main actor.
  @MainActor
  private final class WebAuthenticationPresentation {
    /// Whether one of Xid's sessions is on screen: the system shows one at a time.
    private static var presenting = false

    private let url: URL
    private let callback: WebAuthenticationCallback?
    private let ephemeral: Bool
    private let anchor: WebAuthenticationSessionUserAgent.PresentationAnchor
    private var session: ASWebAuthenticationSession?
    private var contextProvider: (any ASWebAuthenticationPresentationContextProviding)?
    private var continuation: CheckedContinuation<Result<URL, WebAuthenticationFailure>, Never>?
    private var cancelledByTask = false
    private var holdsPresentation = false

    private init(
      url: URL, callback: WebAuthenticationCallback?, ephemeral: Bool,
      anchor: WebAuthenticationSessionUserAgent.PresentationAnchor
    ) {
      self.url = url
      self.callback = callback
      self.ephemeral = ephemeral
      self.anchor = anchor
    }

    /// Shows `url` until the session ends, and cancels it when the calling task is cancelled.
    static func present(
      _ url: URL, callback: WebAuthenticationCallback?, ephemeral: Bool,
      anchor: WebAuthenticationSessionUserAgent.PresentationAnchor
    ) async -> Result<URL, WebAuthenticationFailure> {
      let presentation = WebAuthenticationPresentation(
        url: url, callback: callback, ephemeral: ephemeral, anchor: anchor)
      return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          presentation.continuation = continuation
          presentation.start()
        }
      } onCancel: {
        Task { @MainActor in presentation.cancel() }
      }
    }

    private func start() {
      if Task.isCancelled {
        cancelledByTask = true
        return end(.failure(.canceledLogin(byTask: true)))
      }
      guard !Self.presenting else { return end(.failure(.alreadyPresenting)) }
      switch anchor.source {
      case .window(let window):
        guard let window = window() else { return end(.failure(.noWindow)) }
        contextProvider = WindowContextProvider(window)
      case .contextProvider(let reference):
        guard let provider = reference.provider else { return end(.failure(.noWindow)) }
        contextProvider = provider
      }
      // The handler may run on any thread: it only hops to the main actor.
      let session = makeSession { @Sendable callbackURL, error in
        Task { @MainActor in self.complete(callbackURL, error) }
      }
      session.presentationContextProvider = contextProvider
      session.prefersEphemeralWebBrowserSession = ephemeral
      self.session = session
      Self.presenting = true
      holdsPresentation = true
      if !session.start() { end(.failure(.notStarted)) }
    }

    private func makeSession(
      _ handler: @escaping @Sendable (URL?, (any Error)?) -> Void
    ) -> ASWebAuthenticationSession {
      if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *), let callback {
        let match: ASWebAuthenticationSession.Callback =
          switch callback {
          case .customScheme(let scheme): .customScheme(scheme)
          case .https(let host, let path): .https(host: host, path: path)
          }
        return ASWebAuthenticationSession(url: url, callback: match, completionHandler: handler)
      }
      // Before iOS 17.4 only schemes are matched; with none, the session ends when the user closes it.
      return ASWebAuthenticationSession(url: url, callbackURLScheme: callback?.scheme, completionHandler: handler)
    }

    private func complete(_ callbackURL: URL?, _ error: (any Error)?) {
      if let callbackURL { return end(.success(callbackURL)) }
      guard let error else { return end(.failure(.noCallbackURL)) }
      let nsError = error as NSError
      end(
        .failure(
          WebAuthenticationFailure(
            domain: nsError.domain, code: nsError.code, sessionErrorDomain: ASWebAuthenticationSessionErrorDomain,
            byTask: cancelledByTask)))
    }

    private func cancel() {
      cancelledByTask = true
      guard let session else { return }
      session.cancel()
      end(.failure(.canceledLogin(byTask: true)))
    }

    /// Resumes the waiting task once, and lets go of the session.
    private func end(_ result: Result<URL, WebAuthenticationFailure>) {
      if holdsPresentation {
        Self.presenting = false
        holdsPresentation = false
      }
      session = nil
      contextProvider = nil
      continuation?.resume(returning: result)
      continuation = nil
    }

    /// The key window of the first foreground scene (active first, then inactive); on macOS the
    /// app's key window, or its main window.
    static func foregroundKeyWindow() -> ASPresentationAnchor? {
      #if canImport(UIKit)
        guard let application = sharedApplication() else { return nil }
        let scenes = application.connectedScenes.compactMap { $0 as? UIWindowScene }
        let foreground =
          scenes.filter { $0.activationState == .foregroundActive }
          + scenes.filter { $0.activationState == .foregroundInactive }
        for scene in foreground {
          if let window = scene.keyWindow ?? scene.windows.first(where: { $0.isKeyWindow }) ?? scene.windows.first {
            return window
          }
        }
        return nil
      #elseif canImport(AppKit)
        return NSApplication.shared.keyWindow ?? NSApplication.shared.mainWindow
      #else
        return nil
      #endif
    }

    #if canImport(UIKit)
      /// The application object, or `nil` in an app extension. `UIApplication.shared` cannot be named
      /// here: Xcode compiles a package linked into an extension with extension-only API, where it is
      /// unavailable.
      private static func sharedApplication() -> UIApplication? {
        let selector = NSSelectorFromString("sharedApplication")
        guard UIApplication.responds(to: selector) else { return nil }
        return UIApplication.perform(selector)?.takeUnretainedValue() as? UIApplication
      }
    #endif
  }
#endif
