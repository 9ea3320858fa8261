import Foundation

/// A value behind a lock, for the few places where state must be read synchronously (the
/// `getAccessToken()` fast path, configuration). Critical sections are a few loads and stores; no
/// code that can wait runs under the lock.
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
  // `value` is only touched while `lock` is held.
  private let lock = NSLock()
  private var value: Value

  package init(_ value: Value) { self.value = value }

  package func get() -> Value { lock.withLock { value } }

  package func set(_ newValue: Value) { lock.withLock { value = newValue } }

  package func update<R>(_ body: (inout Value) throws -> R) rethrows -> R { try lock.withLock { try body(&value) } }
}
