import Foundation

/// The sign-ins in progress for one account, kept in the token storage so that an app relaunched
/// between opening the browser and receiving the redirect can still finish, or fail cleanly.
///
/// All of an account's pending sign-ins (their `state`, `nonce` and PKCE verifier) are one record under
/// one key, so that any ``TokenStorageAdapter`` holds them with `save`, `load` and `delete` alone. The
/// record is changed under the account's lock, so two sign-ins started at once, in this process or in
/// two, never overwrite each other. A sign-in leaves the record after the code exchange, when its flow
/// fails, or once it is older than ``lifetime``. The DPoP key of a sign-in that did not finish goes
/// with it; a finished sign-in's key now belongs to the session. A key that the account's stored
/// record names is never deleted here: the entry of a finished sign-in whose removal failed (only
/// logged) is purged later as expired, and its key is the session's.
actor PendingAuthorizationStore {
  /// How long a sign-in may stay pending.
  static let lifetime: TimeInterval = 15 * 60

  private let storage: any TokenStorageAdapter
  private let lock: AccountLock
  private let logger: any XidLogger
  private let dpopKeys: DPoPKeyStore?
  /// The account's token record, whose DPoP key a purge leaves alone.
  private let records: AccountRecordStore?
  /// The storage key of the record.
  let key: String

  init(
    storage: any TokenStorageAdapter, accountKey: String, lock: AccountLock, logger: any XidLogger,
    dpopKeys: DPoPKeyStore? = nil, records: AccountRecordStore? = nil
  ) {
    self.storage = storage
    self.key = "xid.pending." + TokenRecord.accountPart(ofStorageKey: accountKey)
    self.lock = lock
    self.logger = logger
    self.dpopKeys = dpopKeys
    self.records = records
  }

  /// Adds a sign-in, and removes the ones that expired (with their verifiers and nonces) on the way.
  func save(_ pending: PendingAuthorization, now: Date) async throws {
    try await change(purgingKeys: true) {
      $0.removeAll { !Self.isLive($0, at: now) }
      $0.append(pending)
    }
  }

  /// Every pending sign-in still within its lifetime at `now`. Reading changes nothing.
  func all(now: Date) throws -> [PendingAuthorization] {
    try read().filter { Self.isLive($0, at: now) }
  }

  /// Removes a sign-in that finished or failed; a failure to remove it is logged, not thrown.
  ///
  /// - Parameter purgingKey: whether its DPoP key goes too: yes for a failed sign-in, no for one whose
  ///   session now uses the key.
  func remove(_ pending: PendingAuthorization, purgingKey: Bool = true) async {
    do {
      try await change(purgingKeys: purgingKey, also: purgingKey ? [pending] : []) {
        $0.removeAll { $0.state == pending.state }
      }
    } catch {
      logger.log(.notice, category: "sign-in", "could not remove a finished pending sign-in: \(error)")
      if purgingKey { try? await lock.run("sign-in key purge", isolation: self) { try purgeKeys(of: [pending], $0) } }
    }
  }

  /// Removes every pending sign-in of the account, with their DPoP keys (sign-out).
  func removeAll() async {
    do {
      try await change(purgingKeys: true) { $0.removeAll() }
    } catch {
      logger.log(.notice, category: "sign-in", "could not remove the pending sign-ins: \(error)")
    }
  }

  /// Deletes the DPoP keys of `entries`, sign-ins that were abandoned or failed, under the account's
  /// lock, which a sign-in's save of its record takes too. A key that the stored record names is the
  /// session's and stays; when the record cannot be read, no key is deleted (an unused key left in
  /// storage is better than a session without its key).
  private func purgeKeys(of entries: [PendingAuthorization], _ tenure: AccountTenure) throws {
    guard let dpopKeys else { return }
    var thumbprints = Set(entries.compactMap(\.dpopKeyThumbprint))
    guard !thumbprints.isEmpty else { return }
    if let records {
      do {
        if let inUse = try records.read().record?.dpopKeyThumbprint { thumbprints.remove(inUse) }
      } catch {
        logger.log(
          .notice, category: "sign-in",
          "kept the DPoP keys of \(thumbprints.count) ended sign-in(s): the session's record could not be read to tell whether it uses one (\((error as? XidError)?.code.rawValue ?? "an error"))"
        )
        return
      }
    }
    for thumbprint in thumbprints { try tenure.commit { dpopKeys.delete(thumbprint: thumbprint) } }
  }

  private static func isLive(_ pending: PendingAuthorization, at now: Date) -> Bool {
    now.timeIntervalSince(pending.createdAt) < lifetime
  }

  /// Reads, changes and writes the record under the account's lock; an empty record is deleted.
  ///
  /// - Parameters:
  ///   - purgingKeys: whether the DPoP keys of the entries the change removes go too (``purgeKeys(of:_:)``),
  ///     with the keys of `also`, under the same holding of the lock.
  private func change(
    purgingKeys: Bool = false, also: [PendingAuthorization] = [], _ body: (inout [PendingAuthorization]) -> Void
  ) async throws {
    try await lock.run("sign-in record change", isolation: self) { tenure in
      var entries = try read()
      let original = entries
      let before = entries.map(\.state)
      body(&entries)
      var removed: [PendingAuthorization] = []
      if entries.map(\.state) != before {
        let kept = Set(entries.map(\.state))
        if entries.isEmpty {
          try tenure.commit { try storage.delete(key: key) }
        } else {
          let text = String(decoding: try JSONEncoder().encode(entries), as: UTF8.self)
          try tenure.commit { try storage.save(key: key, value: text) }
        }
        removed = original.filter { !kept.contains($0.state) }
      }
      if purgingKeys { try purgeKeys(of: removed + also, tenure) }
    }
  }

  /// The stored sign-ins; a record that cannot be read counts as none (it holds no session).
  private func read() throws -> [PendingAuthorization] {
    guard let text = try storage.load(key: key) else { return [] }
    guard let entries = try? JSONDecoder().decode([PendingAuthorization].self, from: Data(text.utf8)) else {
      logger.log(.notice, category: "sign-in", "ignored an unreadable record of pending sign-ins")
      return []
    }
    return entries
  }
}
