import Foundation
import Testing
import Xid
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// Records every log message, so tests can prove that no secret reaches a log line.
final class RecordingLogger: XidLogger, @unchecked Sendable {
  private let lock = NSLock()
  private var lines: [String] = []

  func log(_ level: XidLogLevel, category: String, _ message: String) {
    lock.withLock { lines.append("[\(category)] \(level): \(message)") }
  }

  var messages: [String] { lock.withLock { lines } }
}

/// An ``Xid`` wired to an in-memory test provider, with the secrets it saw and the logs it wrote.
struct SessionHarness {
  let provider: TestProvider
  let storage: any TokenStorageAdapter
  let logger: RecordingLogger
  let xid: Xid

  init(
    provider: TestProvider? = nil, storage: any TokenStorageAdapter = InMemoryTokenStorage(),
    transport: (any HTTPTransport)? = nil
  ) throws {
    let provider = try provider ?? TestProvider()
    let logger = RecordingLogger()
    try self.init(
      provider: provider, storage: storage, logger: logger,
      configuration: Self.configuration(provider, logger: logger, transport: transport))
  }

  /// A harness with its own configuration, whose logger is `logger`.
  init(
    provider: TestProvider, storage: any TokenStorageAdapter, logger: RecordingLogger,
    configuration: XidConfiguration
  ) throws {
    self.provider = provider
    self.storage = storage
    self.logger = logger
    xid = try Xid(configuration: configuration.storing(in: storage))
    LeakRegistry.current?.register(provider: provider, logger: logger)
  }

  static func configuration(
    _ provider: TestProvider, logger: any XidLogger, transport: (any HTTPTransport)? = nil
  ) -> XidConfiguration {
    XidConfiguration(
      identity: ClientIdentity(
        issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0],
        postLogoutRedirectUri: TestClient.example.postLogoutRedirectURIs[0]),
      parts: SessionParts(
        transport: transport ?? provider.transport, clock: provider.clock, userAgent: provider.userAgent, logger: logger
      ))
  }

  /// The storage key of the account's token record.
  var recordKey: String {
    TokenRecord.storageKey(issuer: provider.issuer.absoluteString, clientId: TestClient.example.id, account: "default")
  }

  /// How many sign-ins the account's record of pending sign-ins holds.
  func pendingCount() throws -> Int {
    let key = "xid.pending." + recordKey.replacingOccurrences(of: "xid.tokens.", with: "")
    guard let text = try storage.load(key: key) else { return 0 }
    return try JSONValue(parsing: text).arrayValue?.count ?? -1
  }

  /// The stored record's JSON members.
  func storedRecord() throws -> [String: JSONValue]? {
    guard let text = try storage.load(key: recordKey) else { return nil }
    return try JSONValue(parsing: text).objectValue
  }

  /// Every token in the stored record.
  func storedSecrets() throws -> [String] {
    guard let record = try storedRecord() else { return [] }
    return ["access_token", "refresh_token", "id_token"].compactMap { record[$0]?.stringValue }
  }

  /// Fails the test if a log line or `text` contains any of `secrets`.
  func expectNoSecrets(_ secrets: [String], in texts: [String] = [], sourceLocation: SourceLocation = #_sourceLocation)
  {
    for secret in secrets where secret.count >= 8 {
      for line in logger.messages + texts {
        let redacted = line.replacingOccurrences(of: secret, with: "[secret]")
        #expect(!line.contains(secret), "a secret leaked into: \(redacted.prefix(120))", sourceLocation: sourceLocation)
      }
    }
  }
}
