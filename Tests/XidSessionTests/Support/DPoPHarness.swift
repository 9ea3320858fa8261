import Foundation
import Testing
import Xid
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A ``SessionHarness`` whose configuration turns DPoP on, with a way to reach the session's key
/// and nonce cache in its storage.
extension SessionHarness {
  /// A harness with ``XidConfiguration/usesDPoP`` on.
  static func dpop(
    provider: TestProvider? = nil, storage: any TokenStorageAdapter = InMemoryTokenStorage(),
    configure: (inout XidConfiguration) -> Void = { _ in }
  ) throws -> SessionHarness {
    let provider = try provider ?? TestProvider()
    let logger = RecordingLogger()
    var configuration = SessionHarness.configuration(provider, logger: logger)
    configuration.usesDPoP = true
    configure(&configuration)
    return try SessionHarness(provider: provider, storage: storage, logger: logger, configuration: configuration)
  }

  /// The stored DPoP key entry of `thumbprint`, as JSON.
  func storedKey(_ thumbprint: String) throws -> [String: JSONValue]? {
    guard let text = try storage.load(key: DPoPKeyStore.storageKey(thumbprint: thumbprint)) else { return nil }
    return try JSONValue(parsing: Array(text.utf8)).objectValue
  }

  /// The private scalar of the stored software key `thumbprint`, to prove it never leaks.
  func storedKeyMaterial(_ thumbprint: String) throws -> String? {
    guard let form = try storedKey(thumbprint)?["key"]?.stringValue else { return nil }
    return try JSONValue(parsing: Array(form.utf8))["d"]?.stringValue
  }

  /// The DPoP keys in the storage (an ``InMemoryTokenStorage`` or ``FileTokenStorage``).
  func storedKeyNames() throws -> [String] {
    if let memory = storage as? InMemoryTokenStorage { return try memory.keys(withPrefix: DPoPKeyStore.keyPrefix) }
    if let files = storage as? FileTokenStorage { return try files.keys(withPrefix: DPoPKeyStore.keyPrefix) }
    return []
  }

  /// The storage key of the account's DPoP nonce cache.
  var nonceCacheKey: String { DPoPNonceCache.storageKey(accountKey: recordKey) }
}

/// A key factory that plays a hardware key store: software keys that say they are hardware-backed,
/// under another kind, available or not.
struct FakeHardwareKeyFactory: DPoPKeyFactory {
  var isAvailable: Bool
  var kind: String { "fakeEnclave" }

  struct Key: DPoPKey {
    let inner: any DPoPKey
    var publicJWK: JWK { inner.publicJWK }
    var thumbprint: String { inner.thumbprint }
    var isHardwareBacked: Bool { true }
    func sign(_ message: [UInt8]) throws -> [UInt8] { try inner.sign(message) }
  }

  func makeKey() throws -> (key: any DPoPKey, storedForm: String) {
    let (key, stored) = try SoftwareDPoPKeyFactory().makeKey()
    return (Key(inner: key), "enclave:" + stored)
  }

  func restoreKey(from storedForm: String) throws -> any DPoPKey {
    guard storedForm.hasPrefix("enclave:") else {
      throw XidError(.dpopKeyUnavailable, "not a key of this fake enclave")
    }
    return Key(inner: try SoftwareDPoPKeyFactory().restoreKey(from: String(storedForm.dropFirst(8))))
  }
}
