import Foundation

/// The sign-ins in progress for one account, kept in the token storage so that an app relaunched
/// between opening the browser and receiving the redirect can still finish, or fail cleanly.
///
/// All of an account's pending sign-ins (their `state`, `nonce` and PKCE verifier) are one record under
/// one key, so that any ``TokenStorageAdapter`` holds them with `save`, `load` and `delete` alone. The
/// record is changed under the account's lock, so two sign-ins started at once, in this process or in
/// two, never overwrite each other. A sign-in leaves the record after the code exchange, when its flow
/// fails, or once it is older than ``lifetime``. The DPoP key of a sign-in that did not finish goes
/// with it; a finished sign-in's key now belongs to the session.
actor PendingAuthorizationStore {
  /// How long a sign-in may stay pending.
  static let lifetime: TimeInterval = 15 * 60

  private let storage: any TokenStorageAdapter
  private let lock: AccountLock
  private let logger: any XidLogger
  private let dpopKeys: DPoPKeyStore?
  /// The storage key of the record.
  let key: String

  init(
    storage: any TokenStorageAdapter, accountKey: String, lock: AccountLock, logger: any XidLogger,
    dpopKeys: DPoPKeyStore? = nil
  ) {
    self.storage = storage
    self.key = "xid.pending." + TokenRecord.accountPart(ofStorageKey: accountKey)
    self.lock = lock
    self.logger = logger
    self.dpopKeys = dpopKeys
  }

  /// Adds a sign-in, and removes the ones that expired (with their verifiers and nonces) on the way.
  func save(_ pending: PendingAuthorization, now: Date) async throws {
    let expired = try await change {
      $0.removeAll { !Self.isLive($0, at: now) }
      $0.append(pending)
    }
    purgeKeys(of: expired)
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
      try await change { $0.removeAll { $0.state == pending.state } }
    } catch {
      logger.log(.notice, category: "sign-in", "could not remove a finished pending sign-in: \(error)")
    }
    if purgingKey { purgeKeys(of: [pending]) }
  }

  /// Removes every pending sign-in of the account, with their DPoP keys (sign-out).
  func removeAll() async {
    do {
      purgeKeys(of: try await change { $0.removeAll() })
    } catch {
      logger.log(.notice, category: "sign-in", "could not remove the pending sign-ins: \(error)")
    }
  }

  /// Deletes the DPoP keys of sign-ins that were abandoned or failed.
  private func purgeKeys(of entries: [PendingAuthorization]) {
    guard let dpopKeys else { return }
    for thumbprint in Set(entries.compactMap(\.dpopKeyThumbprint)) { dpopKeys.delete(thumbprint: thumbprint) }
  }

  private static func isLive(_ pending: PendingAuthorization, at now: Date) -> Bool {
    now.timeIntervalSince(pending.createdAt) < lifetime
  }

  /// Reads, changes and writes the record under the account's lock; an empty record is deleted.
  ///
  /// - Returns: the entries the change removed.
  @discardableResult
  private func change(_ body: (inout [PendingAuthorization]) -> Void) async throws -> [PendingAuthorization] {
    try await lock.run("sign-in record change", isolation: self) { tenure in
      var entries = try read()
      let original = entries
      let before = entries.map(\.state)
      body(&entries)
      guard entries.map(\.state) != before else { return [] }
      let kept = Set(entries.map(\.state))
      if entries.isEmpty {
        try tenure.commit { try storage.delete(key: key) }
      } else {
        let text = String(decoding: try JSONEncoder().encode(entries), as: UTF8.self)
        try tenure.commit { try storage.save(key: key, value: text) }
      }
      return original.filter { !kept.contains($0.state) }
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
