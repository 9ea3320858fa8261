import Foundation

/// A value behind a lock, for the few places where state must be read synchronously (the
/// `getAccessToken()` fast path, configuration). Critical sections are a few loads and stores; no
/// code that can wait runs under the lock.
///
/// Inlinable: the layers above use it on the in-memory token path, and a generic class called
/// across modules would otherwise run unspecialized.
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
  // `value` is only touched while `lock` is held.
  @usableFromInline let lock = NSLock()
  @usableFromInline var value: Value

  @inlinable package init(_ value: Value) { self.value = value }

  @inlinable package func get() -> Value { lock.withLock { value } }

  @inlinable package func set(_ newValue: Value) { lock.withLock { value = newValue } }

  @inlinable package func update<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try lock.withLock { try body(&value) }
  }
}
