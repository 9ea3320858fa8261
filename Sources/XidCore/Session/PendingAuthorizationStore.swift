import Foundation

/// The sign-ins in progress for one account, kept in the token storage so that an app relaunched
/// between opening the browser and receiving the redirect can still finish, or fail cleanly.
///
/// All of an account's pending sign-ins (their `state`, `nonce` and PKCE verifier) are one record under
/// one key, so that any ``TokenStorageAdapter`` holds them with `save`, `load` and `delete` alone. The
/// record is changed under the account's lock, so two sign-ins started at once, in this process or in
/// two, never overwrite each other. A sign-in leaves the record after the code exchange, when its flow
/// fails, or once it is older than ``lifetime``.
actor PendingAuthorizationStore {
  /// How long a sign-in may stay pending.
  static let lifetime: TimeInterval = 15 * 60

  private let storage: any TokenStorageAdapter
  private let lock: AccountLock
  private let logger: any XidLogger
  /// The storage key of the record.
  let key: String

  init(storage: any TokenStorageAdapter, accountKey: String, lock: AccountLock, logger: any XidLogger) {
    self.storage = storage
    self.key = "xid.pending." + accountKey.replacingOccurrences(of: "xid.tokens.", with: "")
    self.lock = lock
    self.logger = logger
  }

  /// Adds a sign-in, and removes the ones that expired (with their verifiers and nonces) on the way.
  func save(_ pending: PendingAuthorization, now: Date) async throws {
    try await change {
      $0.removeAll { !Self.isLive($0, at: now) }
      $0.append(pending)
    }
  }

  /// Every pending sign-in still within its lifetime at `now`. Reading changes nothing.
  func all(now: Date) throws -> [PendingAuthorization] {
    try read().filter { Self.isLive($0, at: now) }
  }

  /// Removes a sign-in that finished or failed; a failure to remove it is logged, not thrown.
  func remove(_ pending: PendingAuthorization) async {
    do {
      try await change { $0.removeAll { $0.state == pending.state } }
    } catch {
      logger.log(.notice, category: "sign-in", "could not remove a finished pending sign-in: \(error)")
    }
  }

  /// Removes every pending sign-in of the account (sign-out).
  func removeAll() async {
    do {
      try await change { $0.removeAll() }
    } catch {
      logger.log(.notice, category: "sign-in", "could not remove the pending sign-ins: \(error)")
    }
  }

  private static func isLive(_ pending: PendingAuthorization, at now: Date) -> Bool {
    now.timeIntervalSince(pending.createdAt) < lifetime
  }

  /// Reads, changes and writes the record under the account's lock; an empty record is deleted.
  private func change(_ body: (inout [PendingAuthorization]) -> Void) async throws {
    try await lock.run("sign-in record change", isolation: self) { tenure in
      var entries = try read()
      let before = entries.map(\.state)
      body(&entries)
      guard entries.map(\.state) != before else { return }
      if entries.isEmpty {
        try tenure.commit { try storage.delete(key: key) }
      } else {
        let text = String(decoding: try JSONEncoder().encode(entries), as: UTF8.self)
        try tenure.commit { try storage.save(key: key, value: text) }
      }
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
