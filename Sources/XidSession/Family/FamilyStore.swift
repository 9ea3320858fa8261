import Foundation

/// An app family's records in the family's storage, with the family's lock in the storage's
/// `refreshLockDirectory`. The family lock is always taken before an account's lock.
///
/// A storage adapter cannot list its keys, so the family keeps an index of its records' keys beside
/// them (``FamilyRecord/indexKey(family:)``). A key in the index whose record is gone is skipped,
/// and dropped at the next write.
struct FamilyStore: Sendable {
  let storage: any TokenStorageAdapter
  let family: AppFamily
  let lockTimeout: Duration
  let clock: any XidClock
  let logger: any XidLogger

  private var indexKey: String { FamilyRecord.indexKey(family: family.name) }

  /// Runs `body` under the family lock (none for a storage private to one process).
  func withLock<T>(
    isolation: isolated (any Actor)?, _ body: () async throws -> T
  ) async throws -> T {
    guard let directory = storage.refreshLockDirectory else { return try await body() }
    let holder = try await FileLock(directory: directory, name: "." + indexKey + ".lock").acquire(
      timeout: lockTimeout, clock: clock)
    defer { holder.release() }
    return try await body()
  }

  /// The record under `key`; `nil` when there is none.
  ///
  /// - Throws: storage errors, ``XidError/Code/corruptRecord`` and
  ///   ``XidError/Code/unsupportedRecordFormat`` (the record is left as it is).
  func read(key: String) throws -> FamilyRecord? {
    guard key.hasPrefix(FamilyRecord.keyPrefix), let text = try storage.load(key: key) else { return nil }
    return try FamilyRecord(decoding: text)
  }

  /// Writes `record` whole, and adds its key to the index. Call under the family lock.
  func write(_ record: FamilyRecord) throws {
    try storage.save(key: record.storageKey, value: record.encoded())
    let keys = try indexKeys()
    if !keys.contains(record.storageKey) { try writeIndex(keys + [record.storageKey]) }
  }

  /// Deletes the record under `key`, and drops it from the index. Call under the family lock.
  func delete(key: String) throws {
    try storage.delete(key: key)
    let keys = try indexKeys()
    if keys.contains(key) { try writeIndex(keys.filter { $0 != key }) }
  }

  /// The family's records this version can read, in the order they were first written. A record of
  /// an unknown format, or one that cannot be read, is skipped (and logged), never deleted.
  func all() throws -> [FamilyRecord] {
    try indexKeys().compactMap { key in
      do {
        return try read(key: key)
      } catch let error as XidError where error.code == .unsupportedRecordFormat || error.code == .corruptRecord {
        logger.log(.notice, category: "family", "a family record was skipped (\(error.code.rawValue))")
        return nil
      }
    }
  }

  private func indexKeys() throws -> [String] {
    guard let text = try storage.load(key: indexKey) else { return [] }
    guard let keys = (try? JSONValue(parsing: Array(text.utf8)))?["keys"]?.arrayValue else {
      throw XidError(
        .corruptRecord, "the app family's index (\(indexKey)) is not a JSON object with a \"keys\" array")
    }
    return keys.compactMap(\.stringValue).filter { $0.hasPrefix(FamilyRecord.keyPrefix) }
  }

  private func writeIndex(_ keys: [String]) throws {
    let value = JSONValue.object(["format": .int(1), "keys": .array(keys.map(JSONValue.string))]).serialized()
    try storage.save(key: indexKey, value: value)
  }
}

extension FamilyStore {
  /// The store of `configuration`'s family, in its ``SessionParts/familyStorage`` (else `storage`,
  /// the app's own); `nil` outside an app family.
  init?(configuration: XidConfiguration, storage: any TokenStorageAdapter) {
    guard let family = configuration.identity.family else { return nil }
    self.init(
      storage: configuration.parts.familyStorage ?? storage, family: family,
      lockTimeout: configuration.policy.refreshLockTimeout, clock: configuration.parts.clock,
      logger: configuration.parts.logger)
  }
}
