import Foundation

/// The sign-ins in progress for one account, kept in the token storage so that an app relaunched
/// between opening the browser and receiving the redirect can still finish, or fail cleanly.
///
/// Each pending sign-in (its `state`, `nonce` and PKCE verifier) is one item, deleted right after the
/// code exchange, when the flow fails, or once it is older than ``lifetime``.
struct PendingAuthorizationStore: Sendable {
  /// How long a sign-in may stay pending.
  static let lifetime: TimeInterval = 15 * 60

  let storage: any TokenStorageAdapter
  let prefix: String
  let logger: any XidLogger

  init(storage: any TokenStorageAdapter, accountKey: String, logger: any XidLogger) {
    self.storage = storage
    self.prefix = "xid.pending." + accountKey.replacingOccurrences(of: "xid.tokens.", with: "") + "."
    self.logger = logger
  }

  private func key(for state: String) -> String {
    prefix + Base64URL.encode(XidCrypto.sha256(Array(state.utf8)).prefix(18))
  }

  func save(_ pending: PendingAuthorization) throws {
    let data = try JSONEncoder().encode(pending)
    try storage.save(key: key(for: pending.state), value: String(decoding: data, as: UTF8.self))
  }

  /// Every pending sign-in still within its lifetime; expired and unreadable ones are deleted.
  func all(now: Date) throws -> [PendingAuthorization] {
    var result: [PendingAuthorization] = []
    for key in try storage.keys(withPrefix: prefix) {
      guard let text = try storage.load(key: key) else { continue }
      guard let pending = try? JSONDecoder().decode(PendingAuthorization.self, from: Data(text.utf8)),
        now.timeIntervalSince(pending.createdAt) < Self.lifetime
      else {
        logger.log(.info, category: "sign-in", "removed an expired or unreadable pending sign-in")
        try? storage.delete(key: key)
        continue
      }
      result.append(pending)
    }
    return result
  }

  func remove(_ pending: PendingAuthorization) {
    do {
      try storage.delete(key: key(for: pending.state))
    } catch {
      logger.log(.notice, category: "sign-in", "could not remove a finished pending sign-in: \(error)")
    }
  }

  func removeAll() {
    for key in (try? storage.keys(withPrefix: prefix)) ?? [] { try? storage.delete(key: key) }
  }
}
