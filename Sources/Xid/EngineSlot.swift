import XidCore

#if os(Linux)
  import Synchronization
#elseif canImport(os)
  import os
#else
  import Foundation
#endif

/// The engine an ``Xid`` made for its current configuration, read by every call and, on the token
/// fast path, before anything else.
///
/// - On Linux the engine is published in an atomic reference, which a reader loads without a lock
///   and uses without a retain (``withEngine(_:)``). That is safe because the slot keeps every
///   engine it ever published for as long as it lives: a reader that loaded an engine just before
///   ``set(_:)`` replaced it still holds a live object. An engine is replaced only when the app
///   calls `configure(options:)` or `setTokenStorage(_:)` again, a handful of times in a process's
///   life, and a replaced engine is idle: no call reaches it once the replacement is published.
/// - On Apple platforms, whose `Atomic` needs iOS 18 and macOS 15, an unfair lock guards it.
///
/// The lock it replaces on Linux cost about a fifth of `getAccessToken()` with a token in memory.
final class EngineSlot: Sendable {
  #if os(Linux)
    /// The engine handed out now; every engine it ever pointed to is in `published`.
    private let current = Atomic<Unmanaged<SessionEngine>?>(nil)
    /// Every engine published, kept alive for readers of `current`.
    private let published = Mutex<[SessionEngine]>([])

    /// The current engine, if one was made.
    func get() -> SessionEngine? { current.load(ordering: .acquiring)?.takeUnretainedValue() }

    /// Runs `body` with the current engine, without retaining it; `nil` when none was made.
    func withEngine<R>(_ body: (SessionEngine) throws -> R) rethrows -> R? {
      guard let engine = current.load(ordering: .acquiring) else { return nil }
      return try engine._withUnsafeGuaranteedRef(body)
    }

    /// Publishes `engine` (`nil` after a change of configuration, until the next engine is made).
    func set(_ engine: SessionEngine?) {
      published.withLock { published in
        if let engine, !published.contains(where: { $0 === engine }) { published.append(engine) }
        current.store(engine.map { Unmanaged.passUnretained($0) }, ordering: .releasing)
      }
    }
  #elseif canImport(os)
    private let engine = OSAllocatedUnfairLock<SessionEngine?>(initialState: nil)

    /// The current engine, if one was made.
    func get() -> SessionEngine? { engine.withLock { $0 } }

    /// Runs `body` with the current engine; `nil` when none was made.
    func withEngine<R>(_ body: (SessionEngine) throws -> R) rethrows -> R? {
      guard let engine = get() else { return nil }
      return try body(engine)
    }

    /// Publishes `engine` (`nil` after a change of configuration, until the next engine is made).
    func set(_ engine: SessionEngine?) { self.engine.withLock { $0 = engine } }
  #else
    private let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var engine: SessionEngine?

    /// The current engine, if one was made.
    func get() -> SessionEngine? {
      lock.lock()
      defer { lock.unlock() }
      return engine
    }

    /// Runs `body` with the current engine; `nil` when none was made.
    func withEngine<R>(_ body: (SessionEngine) throws -> R) rethrows -> R? {
      guard let engine = get() else { return nil }
      return try body(engine)
    }

    /// Publishes `engine` (`nil` after a change of configuration, until the next engine is made).
    func set(_ engine: SessionEngine?) {
      lock.lock()
      defer { lock.unlock() }
      self.engine = engine
    }
  #endif
}
