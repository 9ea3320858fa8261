import Foundation

/// The in-memory copy of an account's record, for the synchronous fast paths, with a generation
/// that tells a reader outside the account's actor whether the actor changed it meanwhile.
///
/// The actor changes it with ``set(_:)``. A reader that loaded the record from storage without the
/// actor keeps it with ``fill(_:ifUnchangedSince:)``, which does nothing once the actor set anything
/// after the reader's ``snapshot()``: a sign-out or a refresh that finished while the reader was
/// reading is never undone by an older copy.
final class RecordCache: Sendable {
  private struct State: Sendable {
    var record: TokenRecord?
    var generation: UInt64
  }

  private let state = LockedValue(State(record: nil, generation: 0))

  /// The record in memory; `nil` until loaded, and after a sign-out.
  func get() -> TokenRecord? { state.get().record }

  /// Replaces the record in memory (the account's actor only).
  func set(_ record: TokenRecord?) {
    state.update {
      $0.record = record
      $0.generation &+= 1
    }
  }

  /// The record in memory and its generation, before reading storage outside the actor.
  func snapshot() -> (record: TokenRecord?, generation: UInt64) {
    let current = state.get()
    return (current.record, current.generation)
  }

  /// Keeps `record`, read from storage, unless the record in memory changed since the snapshot of
  /// `generation`.
  ///
  /// - Returns: whether `record` was kept.
  @discardableResult
  func fill(_ record: TokenRecord, ifUnchangedSince generation: UInt64) -> Bool {
    state.update {
      guard $0.generation == generation else { return false }
      $0.record = record
      $0.generation &+= 1
      return true
    }
  }
}
