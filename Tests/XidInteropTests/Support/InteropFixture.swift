import Foundation
import Testing
import Xid

/// One test's Xid against glewlwyd: public API only, a real `URLSession` transport, and a
/// ``FileTokenStorage`` in a temporary directory that is removed with the fixture.
///
/// `dpop: true` gives a DPoP-bound Xid (``XidConfiguration/usesDPoP``, with `offline_access`) of the
/// client that must prove a key, at the plugin instance that demands server nonces.
struct InteropFixture {
  let environment: InteropEnvironment
  let glewlwyd: Glewlwyd
  let clientId: String
  let issuer: URL
  let directory: TemporaryDirectory
  let storage: FileTokenStorage
  let logger = RecordingLogger()
  /// Every request Xid sent and what came back (statuses, DPoP nonces and challenges; never a token).
  let exchanges: RecordingTransport
  let user: GlewlwydUser
  let configuration: XidConfiguration
  let xid: Xid

  init(
    clientId: String? = nil, issuer: URL? = nil, redirectUri: URL? = nil, expiryLeeway: Duration = .seconds(60),
    userAgent: (any AuthorizationUserAgent)? = nil, dpop: Bool = false, resources: [ProtectedResource] = [],
    clientAuthentication: ClientAuthentication = .none
  ) throws {
    let environment = try InteropEnvironment.require()
    self.environment = environment
    glewlwyd = Glewlwyd(environment)
    self.clientId = clientId ?? (dpop ? environment.clientDPoP : environment.clientES256)
    self.issuer = issuer ?? (dpop ? environment.dpopIssuer : environment.issuer)
    directory = try TemporaryDirectory()
    storage = try FileTokenStorage(directory: directory.url.appendingPathComponent("state", isDirectory: true))
    user = GlewlwydUser(glewlwyd)
    exchanges = RecordingTransport(URLSessionTransport())
    // glewlwyd answers a dead refresh token with an empty 400 (the policy's provider quirk).
    var configuration = XidConfiguration(
      identity: ClientIdentity(
        issuer: self.issuer, clientId: self.clientId, redirectUri: redirectUri ?? environment.redirectUri,
        scopes: ["openid", "profile", "email"] + (dpop ? ["offline_access"] : []),
        postLogoutRedirectUri: environment.postLogoutRedirectUri),
      policy: SessionPolicy(expiryLeeway: expiryLeeway, providerQuirks: [.emptyBadRequestIsInvalidGrant]),
      parts: SessionParts(transport: exchanges, userAgent: userAgent ?? user, logger: logger))
    configuration.usesDPoP = dpop
    configuration.identity.resources = resources
    configuration.identity.clientAuthentication = clientAuthentication
    self.configuration = configuration
    xid = try Xid(configuration: configuration.storing(in: storage))
  }

  /// Another Xid over the same storage, as after a relaunch of the app: nothing in memory.
  func relaunched() throws -> Xid { try Xid(configuration: configuration.storing(in: storage)) }

  // MARK: - The stored record

  /// The key of the account's stored token record.
  func recordKey() throws -> String? { try storage.keys(withPrefix: "xid.tokens.").first }

  /// The stored token record's members, or `nil` when nothing is stored.
  func storedRecord() throws -> [String: JSONValue]? {
    guard let key = try recordKey(), let text = try storage.load(key: key) else { return nil }
    return try JSONValue(parsing: text).objectValue
  }

  /// A string member of the stored record (`refresh_token`, `id_token`, ...).
  func stored(_ name: String) throws -> String? { try storedRecord()?[name]?.stringValue }

  /// Rewrites one member of the stored record, as a damaged or restored file would have it.
  func rewriteStored(_ name: String, to value: JSONValue) throws {
    let key = try #require(try recordKey())
    var record = try #require(try storedRecord())
    record[name] = value
    try storage.save(key: key, value: JSONValue.object(record).serialized())
  }

  /// Fails the test if a log line contains any of `secrets`.
  func expectNoSecretsLogged(_ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    for secret in secrets where !secret.isEmpty {
      let leaked = logger.messages.contains { $0.contains(secret) }
      #expect(!leaked, "a log line contains a token", sourceLocation: sourceLocation)
    }
  }
}

/// A private temporary directory, removed when the last reference goes.
final class TemporaryDirectory: Sendable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "xid-interop-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(
      at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}
