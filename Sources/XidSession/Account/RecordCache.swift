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
/// The record sits in one immutable ``Entry`` with what the token fast path decides on, worked out
/// when the record is set: ``usableAccessToken(at:requiringDPoP:)`` takes the lock once, retains one
/// object, compares two numbers and returns the token, without copying the record (a copy retains
/// each of its strings).
///
/// Its own lock rather than a `LockedValue`: the fast path reads it from other modules, where a
/// `package` generic runs unspecialized (see `LockedValue`), and one lock covers both the record and
/// the pending save, so the fast path takes it once.
final class RecordCache: @unchecked Sendable {
  /// A record and what the fast path needs of it.
  final class Entry: Sendable {
    let record: TokenRecord
    /// Until when (seconds since the reference date) the access token is usable: its expiry less
    /// the leeway; infinity for a token without expiry.
    let usableUntil: TimeInterval
    /// Whether the tokens are bound to a DPoP key.
    let isDPoPBound: Bool

    init(_ record: TokenRecord, leeway: TimeInterval) {
      self.record = record
      usableUntil = record.expiresAt.map { $0.timeIntervalSinceReferenceDate - leeway } ?? .infinity
      isDPoPBound = record.dpopKeyThumbprint != nil
    }
  }

  /// How early an access token counts as expired (``XidConfiguration``'s expiry leeway).
  let leeway: TimeInterval
  private let lock = NSLock()
  // Guarded by `lock`.
  private var entry: Entry?
  private var generation: UInt64 = 0
  private var savePending = false

  /// Creates an empty cache whose fast path treats tokens as expired `leeway` early.
  init(leeway: TimeInterval) { self.leeway = leeway }

  /// The record in memory; `nil` until loaded, and after a sign-out.
  func get() -> TokenRecord? {
    lock.lock()
    defer { lock.unlock() }
    return entry?.record
  }

  /// The access token in memory when it is usable at `now` (more than the leeway before its
  /// expiry), no refreshed tokens wait to be saved (the actor must try first), and, with
  /// `requiringDPoP`, the tokens are DPoP-bound (the actor reports the error otherwise).
  func usableAccessToken(at now: Date, requiringDPoP: Bool) -> String? {
    lock.lock()
    let entry = savePending ? nil : self.entry
    lock.unlock()
    guard let entry, now.timeIntervalSinceReferenceDate < entry.usableUntil,
      !requiringDPoP || entry.isDPoPBound
    else { return nil }
    return entry.record.accessToken
  }

  /// The record in memory unless refreshed tokens wait to be saved (the actor must try first).
  func getUnlessSavePending() -> TokenRecord? {
    lock.lock()
    defer { lock.unlock() }
    return savePending ? nil : entry?.record
  }

  /// Replaces the record in memory (the account's actor only).
  func set(_ record: TokenRecord?) {
    let entry = record.map { Entry($0, leeway: leeway) }
    lock.lock()
    defer { lock.unlock() }
    self.entry = entry
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
    return (entry?.record, generation)
  }

  /// Keeps `record`, read from storage, unless the record in memory changed since the snapshot of
  /// `generation`.
  ///
  /// - Returns: whether `record` was kept.
  @discardableResult
  func fill(_ record: TokenRecord, ifUnchangedSince generation: UInt64) -> Bool {
    let entry = Entry(record, leeway: leeway)
    lock.lock()
    defer { lock.unlock() }
    guard self.generation == generation else { return false }
    self.entry = entry
    self.generation &+= 1
    return true
  }
}
