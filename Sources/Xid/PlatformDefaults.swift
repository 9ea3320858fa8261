import Foundation
import XidApple
import XidCore
import XidURLSession

#if os(macOS) || os(Linux)
  import XidLoopback
#endif

/// What ``Xid`` uses where the configuration names nothing: the one place that picks a shell per
/// platform.
enum PlatformDefaults {
  /// `configuration` with the platform's part wherever it has none, and its presence options as
  /// this platform runs them. `storage`, set with `Xid.setTokenStorage(_:)`, wins over the
  /// configuration's.
  static func completing(_ configuration: XidConfiguration, storage: (any TokenStorageAdapter)?) throws
    -> XidConfiguration
  {
    var completed = configuration
    let parts = configuration.parts
    let storage = try storage ?? parts.storage ?? Self.storage()
    completed.parts.storage = storage
    completed.parts.transport = parts.transport ?? transport()
    completed.parts.backgroundActivity = parts.backgroundActivity ?? backgroundActivity()
    if configuration.usesDPoP {
      completed.parts.dpopKeyFactory = parts.dpopKeyFactory ?? dpopKeyFactory()
    }
    completed.presence = presence(configuration.presence, storage: storage)
    completed.parts.changeSignal = parts.changeSignal ?? changeSignal(storage: storage)
    return completed
  }

  /// How the processes sharing `storage` signal a change (``SessionParts/changeSignal``): a Darwin
  /// notification named from the keychain's access group on Apple platforms, the watch of a
  /// ``FileTokenStorage`` folder on Linux; none otherwise (storage no other process shares, or one
  /// whose sharing Xid cannot see).
  static func changeSignal(storage: any TokenStorageAdapter) -> (any SessionChangeSignal)? {
    #if canImport(Security)
      if let keychain = storage as? KeychainTokenStorage,
        let signal = DarwinChangeSignal(accessGroup: keychain.accessGroup)
      {
        return signal
      }
    #endif
    return (storage as? FileTokenStorage)?.changeSignal
  }

  /// ``URLSessionTransport`` everywhere.
  static func transport() -> any HTTPTransport { URLSessionTransport() }

  /// The keychain on Apple platforms, ``FileTokenStorage`` elsewhere.
  static func storage() throws -> any TokenStorageAdapter {
    #if canImport(Security)
      KeychainTokenStorage()
    #else
      try FileTokenStorage()
    #endif
  }

  /// The time asked of the system while Xid holds the account's lock: on iOS, tvOS, watchOS and
  /// visionOS `ProcessInfo.performExpiringActivity` (safe in app extensions; an app may prefer
  /// `BackgroundTaskActivity`); elsewhere none, since nothing suspends a process holding a lock.
  static func backgroundActivity() -> (any BackgroundActivity)? {
    #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
      ProcessExpiringActivity()
    #else
      nil
    #endif
  }

  /// The Secure Enclave on Apple platforms (software keys where a device has none), and `nil`
  /// elsewhere: the core's ``SoftwareDPoPKeyFactory``.
  static func dpopKeyFactory() -> (any DPoPKeyFactory)? {
    #if canImport(CryptoKit) && canImport(Security)
      SecureEnclaveDPoPKeyFactory()
    #else
      nil
    #endif
  }

  /// The platform's default user agent for `redirectUri`:
  ///
  /// - iOS and visionOS (Mac Catalyst included): `WebAuthenticationSessionUserAgent`, the system's
  ///   in-app browser session, which is what Apple recommends for apps.
  /// - macOS: ``LoopbackUserAgent`` for a loopback `http` redirect URI, which command-line programs and
  ///   other processes without a window use; `WebAuthenticationSessionUserAgent` for any other redirect
  ///   URI (a private-use scheme or a claimed `https` URL), which only an app with a window can use.
  /// - Linux: ``LoopbackUserAgent``.
  /// - Elsewhere (watchOS, tvOS): `nil`.
  static func userAgent(redirectUri: URL) -> (any AuthorizationUserAgent)? {
    #if os(iOS) || os(visionOS)
      WebAuthenticationSessionUserAgent()
    #elseif os(macOS)
      redirectUri.scheme?.lowercased() == "http" ? LoopbackUserAgent() : WebAuthenticationSessionUserAgent()
    #elseif os(Linux)
      LoopbackUserAgent()
    #else
      nil
    #endif
  }
}
