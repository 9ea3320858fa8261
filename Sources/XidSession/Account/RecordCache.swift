import Foundation

/// The in-memory copy of an account's record, for the synchronous fast paths, with a generation
/// that tells a reader outside the account's actor whether the actor changed it meanwhile, and
/// whether refreshed tokens still wait to be saved.
///
/// The actor changes it with ``set(_:)``. A reader that loaded the record from storage without the
/// actor keeps it with ``fill(_:ifUnchangedSince:)``, which does nothing once the actor set anything
/// after the reader's ``snapshot()``: a sign-out or a refresh that finished while the reader was
/// reading is never undone by an older copy.
///
/// Its own lock rather than a `LockedValue`: the fast path reads it from other modules, where a
/// `package` generic runs unspecialized (see `LockedValue`), and one lock covers both the record and
/// the pending save, so the fast path takes it once.
final class RecordCache: @unchecked Sendable {
  private let lock = NSLock()
  // Guarded by `lock`.
  private var record: TokenRecord?
  private var generation: UInt64 = 0
  private var savePending = false

  /// The record in memory; `nil` until loaded, and after a sign-out.
  func get() -> TokenRecord? {
    lock.lock()
    defer { lock.unlock() }
    return record
  }

  /// The record in memory unless refreshed tokens wait to be saved (the actor must try first).
  func getUnlessSavePending() -> TokenRecord? {
    lock.lock()
    defer { lock.unlock() }
    return savePending ? nil : record
  }

  /// Replaces the record in memory (the account's actor only).
  func set(_ record: TokenRecord?) {
    lock.lock()
    defer { lock.unlock() }
    self.record = record
    generation &+= 1
  }

  /// Records whether refreshed tokens wait to be saved (the account's actor only).
  func setSavePending(_ pending: Bool) {
    lock.lock()
    defer { lock.unlock() }
    savePending = pending
  }

  /// The record in memory and its generation, before reading storage outside the actor.
  func snapshot() -> (record: TokenRecord?, generation: UInt64) {
    lock.lock()
    defer { lock.unlock() }
    return (record, generation)
  }

  /// Keeps `record`, read from storage, unless the record in memory changed since the snapshot of
  /// `generation`.
  ///
  /// - Returns: whether `record` was kept.
  @discardableResult
  func fill(_ record: TokenRecord, ifUnchangedSince generation: UInt64) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    guard self.generation == generation else { return false }
    self.record = record
    self.generation &+= 1
    return true
  }
}
