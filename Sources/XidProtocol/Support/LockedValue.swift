import Foundation

/// A value behind a lock, for the few places where state must be read synchronously (the
/// `getAccessToken()` fast path, configuration). Critical sections are a few loads and stores; no
/// code that can wait runs under the lock.
///
/// Its methods are inlinable, but Swift 6.3 does not specialize a `package` generic for another module
/// (it does for a `public` one): across modules every call copies the value through its value
/// witnesses. The in-memory token path therefore keeps its state in a lock of its own
/// (`RecordCache`, in the session layer).
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
  // `value` is only touched while `lock` is held.
  @usableFromInline let lock = NSLock()
  @usableFromInline var value: Value

  @inlinable package init(_ value: Value) { self.value = value }

  // `lock()` and `unlock()` rather than Foundation's `withLock`, a generic function that is not
  // inlinable.

  @inlinable package func get() -> Value {
    lock.lock()
    defer { lock.unlock() }
    return value
  }

  @inlinable package func set(_ newValue: Value) {
    lock.lock()
    defer { lock.unlock() }
    value = newValue
  }

  @inlinable package func update<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
