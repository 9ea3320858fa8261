import Foundation

/// Where Xid keeps its state: one token record per account, and one record of its pending sign-ins.
///
/// Each value is a complete JSON document written in one call, so an implementation only has to make
/// single writes atomic for readers never to see half an update. Xid ships three implementations:
/// ``KeychainTokenStorage`` (Apple platforms, the default there), ``FileTokenStorage`` (macOS and Linux
/// programs) and ``InMemoryTokenStorage`` (tests, and apps that must not persist tokens).
///
/// Throw ``XidError`` from your own implementation: ``XidError/Code/storageLocked`` when the store is
/// temporarily unreadable (a locked device) — Xid then never mistakes it for a signed-out user — and
/// ``XidError/Code/storageFailure`` for anything else.
public protocol TokenStorageAdapter: Sendable {
  /// Stores `value` under `key`, replacing any previous value atomically.
  func save(key: String, value: String) throws
  /// The value stored under `key`, or `nil` when there is none.
  func load(key: String) throws -> String?
  /// Removes the value under `key`; removing a missing key is not an error.
  func delete(key: String) throws
  /// A directory every process sharing this storage can write, where Xid keeps the lock that stops
  /// two processes from refreshing the same account at once; `nil` (the default) when the storage is
  /// private to this process.
  var refreshLockDirectory: URL? { get }
}

extension TokenStorageAdapter {
  /// `nil`: by default a storage is private to its process.
  public var refreshLockDirectory: URL? { nil }
}
