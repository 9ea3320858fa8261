import Foundation

/// The name of a profile, and how to name it again on the command line.
struct ProfileName: Sendable, Equatable {
  /// The profile used when neither `--profile` nor `XID_PROFILE` names one.
  static let `default` = ProfileName("default")

  let value: String

  init(_ value: String) { self.value = value }

  /// ` --profile NAME` to add to a suggested command, or nothing for the default profile.
  var flag: String { value == Self.default.value ? "" : " --profile \(value)" }
}

/// What a profile remembers between commands: the provider, the client, the scopes and the redirect
/// port. Never a token: those are in the token storage.
struct Profile: Sendable, Equatable, Codable {
  /// The issuer, exactly as given at login.
  var issuer: String
  /// The client identifier.
  var clientId: String
  /// The scopes requested at sign-in.
  var scopes: [String]
  /// The redirect URI's port; 0 for any free port.
  var redirectPort: UInt16
  /// Whether the tokens are DPoP-bound (`xid login --dpop`); absent in profiles saved before.
  var dpop: Bool? = nil
  /// Whether the profile asks for `device_sso` and keeps a family session (`xid login --device-sso`).
  var deviceSSO: Bool? = nil
  /// The profile whose family session this one was signed in from (`xid login --sso-from PROFILE`).
  var family: String? = nil
  /// The resources whose own tokens the profile asks for (`xid login --resource URL`, RFC 8707).
  var resources: [String]? = nil

  /// Whether the profile signs in with DPoP.
  var usesDPoP: Bool { dpop ?? false }

  /// Whether the profile keeps a family session.
  var usesDeviceSSO: Bool { deviceSSO ?? false }

  /// The scopes `xid login` asks for when neither `--scope` nor the profile says.
  static let defaultScopes = ["openid", "profile", "email"]

  enum CodingKeys: String, CodingKey {
    case issuer
    case clientId = "client_id"
    case scopes
    case redirectPort = "redirect_port"
    case dpop
    case deviceSSO = "device_sso"
    case family
    case resources
  }

  /// The loopback redirect URI: `http://127.0.0.1:PORT/callback`, without a port for port 0, which
  /// Xid's loopback listener then picks.
  var redirectUri: URL {
    URL(string: redirectPort == 0 ? "http://127.0.0.1/callback" : "http://127.0.0.1:\(redirectPort)/callback")!
  }
}
