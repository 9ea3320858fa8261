import Foundation
import Testing
import Xid

/// The glewlwyd that scripts/interop/start.sh started, as its `env.json` describes it.
///
/// The file is `$XID_IDP_DATA_DIR/env.json` (by default `/dev/shm/xid-glewlwyd/env.json`). Without it,
/// every interop test is skipped with ``unavailableReason``; with it, the provider must answer.
struct InteropEnvironment: Sendable {
  let issuer: URL
  /// The same provider with access tokens that live ``shortAccessTokenDuration`` seconds.
  let shortIssuer: URL
  let shortAccessTokenDuration: TimeInterval
  /// The same provider with server-provided DPoP nonces (glewlwyd switches them on per plugin instance).
  let dpopIssuer: URL
  /// The client that must send a DPoP proof with every token request.
  let clientDPoP: String
  /// Successful DPoP requests of a client after which glewlwyd hands out a new nonce.
  let dpopNonceCounter: Int
  let baseURL: URL
  let clientES256: String
  let clientRS256: String
  /// The client that may ask for authorization details and a resource (RFC 9396, RFC 8707).
  let clientRAR: String
  /// The authorization detail type glewlwyd accepts, to which alice consented for ``clientRAR``.
  let rarType: String
  /// The resource glewlwyd issues tokens for.
  let resource: URL
  /// The confidential client that authenticates with `private_key_jwt`, and its private JWK.
  let clientPrivateKeyJWT: String
  let clientJWK: JSONValue
  let username: String
  let password: String
  /// For flows without a browser; registered at glewlwyd, matched exactly.
  let redirectUri: URL
  /// The real-browser test's loopback listener (a fixed port: glewlwyd has no any-port loopback).
  let browserRedirectURI: URL
  let postLogoutRedirectUri: URL

  static let path: String = {
    let directory = ProcessInfo.processInfo.environment["XID_IDP_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    return (directory ?? "/dev/shm/xid-glewlwyd") + "/env.json"
  }()

  static let loaded: Result<InteropEnvironment, any Error> = Result { try InteropEnvironment(path: path) }

  /// The environment, or `nil` when no provider's env file can be read.
  static var current: InteropEnvironment? { try? loaded.get() }

  /// Why the interop tests are skipped.
  static var unavailableReason: String {
    let reason: String
    switch loaded {
    case .success: return "the interop provider is available"
    case .failure(let error as CocoaError) where error.code == .fileReadNoSuchFile: reason = "\(path) does not exist"
    case .failure(let error): reason = "\(path) cannot be used: \(error)"
    }
    return
      "no interop provider (\(reason)): run `scripts/interop/with-provider.sh swift test`, or start one with scripts/interop/start.sh"
  }

  /// The environment of a test that is enabled only when it exists.
  static func require() throws -> InteropEnvironment { try loaded.get() }

  init(path: String) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    guard let object = try JSONValue(parsing: Array(data)).objectValue else {
      throw InteropFailure("env.json is not a JSON object")
    }
    func string(_ name: String) throws -> String {
      guard let value = object[name]?.stringValue, !value.isEmpty else {
        throw InteropFailure("env.json lacks \(name); re-run scripts/interop/start.sh")
      }
      return value
    }
    func url(_ name: String) throws -> URL {
      guard let url = URL(string: try string(name)) else { throw InteropFailure("\(name) is not a URL") }
      return url
    }
    issuer = try url("XID_IDP_ISSUER")
    shortIssuer = try url("XID_IDP_SHORT_ISSUER")
    guard let duration = TimeInterval(try string("XID_IDP_SHORT_ACCESS_TOKEN_DURATION")), duration >= 3 else {
      throw InteropFailure("XID_IDP_SHORT_ACCESS_TOKEN_DURATION must be a number of seconds, at least 3")
    }
    shortAccessTokenDuration = duration
    dpopIssuer = try url("XID_IDP_DPOP_ISSUER")
    clientDPoP = try string("XID_IDP_CLIENT_ID_DPOP")
    guard let counter = Int(try string("XID_IDP_DPOP_NONCE_COUNTER")), counter > 0 else {
      throw InteropFailure("XID_IDP_DPOP_NONCE_COUNTER must be a positive number of requests")
    }
    dpopNonceCounter = counter
    baseURL = try url("XID_IDP_BASE_URL")
    clientES256 = try string("XID_IDP_CLIENT_ID_ES256")
    clientRS256 = try string("XID_IDP_CLIENT_ID_RS256")
    clientRAR = try string("XID_IDP_CLIENT_ID_RAR")
    rarType = try string("XID_IDP_RAR_TYPE")
    resource = try url("XID_IDP_RESOURCE")
    clientPrivateKeyJWT = try string("XID_IDP_CLIENT_ID_PKJWT")
    clientJWK = try JSONValue(parsing: try string("XID_IDP_CLIENT_JWK"))
    username = try string("XID_IDP_USERNAME")
    password = try string("XID_IDP_PASSWORD")
    redirectUri = try url("XID_IDP_REDIRECT_URI")
    browserRedirectURI = try url("XID_IDP_BROWSER_REDIRECT_URI")
    postLogoutRedirectUri = try url("XID_IDP_POST_LOGOUT_REDIRECT_URI")
  }
}

extension Trait where Self == ConditionTrait {
  /// Runs the test only when the interop provider's env file exists; skips it with a message otherwise.
  static var interopProvider: Self {
    .enabled(if: InteropEnvironment.current != nil, Comment(rawValue: InteropEnvironment.unavailableReason))
  }
}

/// A failure of the test's own steps (the provider answered unexpectedly), never carrying a token.
struct InteropFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
