import Foundation

/// Token storage in memory only: for tests, and for programs that must not persist tokens.
///
/// Values live as long as the instance; nothing is shared with other processes. `dump` shows the
/// stored keys, never the values (which hold tokens).
public final class InMemoryTokenStorage: TokenStorageAdapter, CustomReflectable, @unchecked Sendable {
  // `values` is only touched while `lock` is held.
  private let lock = NSLock()
  private var values: [String: String] = [:]

  /// Creates an empty store.
  public init() {}

  public func save(key: String, value: String) throws { lock.withLock { values[key] = value } }

  public func load(key: String) throws -> String? { lock.withLock { values[key] } }

  public func delete(key: String) throws { _ = lock.withLock { values.removeValue(forKey: key) } }

  /// The stored keys that start with `prefix`: for tools and tests, since Xid itself lists no keys.
  public func keys(withPrefix prefix: String) throws -> [String] {
    lock.withLock { values.keys.filter { $0.hasPrefix(prefix) }.sorted() }
  }

  /// The stored keys only, so that `dump` shows no token.
  public var customMirror: Mirror {
    Mirror(self, children: ["keys": lock.withLock { values.keys.sorted() }], displayStyle: .class)
  }
}
