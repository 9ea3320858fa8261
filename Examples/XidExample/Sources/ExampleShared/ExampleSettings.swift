import Foundation
import Xid

/// What differs between developers and between runs of the demo provider: read from the Info.plist
/// of the running target (the app, the App Intents extension, the widget), where README.md puts it.
///
/// | Info.plist key | Example value |
/// | --- | --- |
/// | `XidExampleIssuer` | `http://127.0.0.1:53117`, the issuer `xid demo --serve` prints |
/// | `XidKeychainAccessGroup` | `$(AppIdentifierPrefix)com.example.shared` |
/// | `XidAppGroup` | `group.com.example` |
public struct ExampleSettings: Sendable, Hashable {
  /// The provider's issuer identifier.
  public var issuer: URL
  /// The keychain access group shared by the app and its extensions, with its team prefix
  /// (`ABCDE12345.com.example.shared`).
  public var keychainAccessGroup: String
  /// The App Group whose container holds the refresh lock (`group.com.example`).
  public var appGroup: String

  /// The Info.plist key of ``issuer``.
  public static let issuerKey = "XidExampleIssuer"
  /// The Info.plist key of ``keychainAccessGroup``.
  public static let keychainAccessGroupKey = "XidKeychainAccessGroup"
  /// The Info.plist key of ``appGroup``.
  public static let appGroupKey = "XidAppGroup"

  /// Creates the settings.
  public init(issuer: URL, keychainAccessGroup: String, appGroup: String) {
    self.issuer = issuer
    self.keychainAccessGroup = keychainAccessGroup
    self.appGroup = appGroup
  }

  /// Reads the settings from an Info.plist dictionary.
  ///
  /// - Throws: `XidError.Code.invalidConfiguration` naming the key that is missing or still a
  ///   placeholder.
  public init(info: [String: Any]) throws {
    func value(_ key: String, example: String) throws -> String {
      guard let text = info[key] as? String, !text.isEmpty else {
        throw XidError(.invalidConfiguration, "the Info.plist has no \(key); set it to \(example) (see README.md)")
      }
      // An unexpanded build setting, or the README's placeholders.
      guard !text.contains("$("), !text.contains(":PORT"), !text.hasPrefix("TEAMID.") else {
        throw XidError(.invalidConfiguration, "the Info.plist's \(key) is still a placeholder; set it to \(example)")
      }
      return text
    }
    let issuerText = try value(
      Self.issuerKey, example: "$(XID_EXAMPLE_ISSUER), a build setting holding the issuer `xid demo --serve` prints")
    guard let issuer = URL(string: issuerText), issuer.scheme != nil, issuer.host != nil else {
      throw XidError(
        .invalidConfiguration,
        "the Info.plist's \(Self.issuerKey) is not a URL; set it to the issuer `xid demo --serve` prints")
    }
    self.init(
      issuer: issuer,
      keychainAccessGroup: try value(
        Self.keychainAccessGroupKey, example: "$(AppIdentifierPrefix) followed by the Keychain Sharing group"),
      appGroup: try value(Self.appGroupKey, example: "the App Groups capability's group"))
  }

  /// The settings of the running target, from its Info.plist.
  ///
  /// - Throws: `XidError.Code.invalidConfiguration` naming the key to set.
  public static func fromMainBundle() throws -> ExampleSettings {
    try ExampleSettings(info: Bundle.main.infoDictionary ?? [:])
  }
}
