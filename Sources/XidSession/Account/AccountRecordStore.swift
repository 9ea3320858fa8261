import Foundation

/// Who a token record belongs to: a configuration's issuer, client and account.
struct RecordOwner: Sendable, Hashable, CustomStringConvertible {
  var issuer: String
  var clientId: String
  var account: String

  /// Whether `record` was stored for this configuration.
  func owns(_ record: TokenRecord) -> Bool {
    record.issuer == issuer && record.clientId == clientId && record.account == account
  }

  var description: String { "issuer \(issuer), client \(clientId), account \(account)" }
}

/// One configuration's token record in storage: where it lives, how it is read, and the checks every
/// load makes.
///
/// The record lives under ``primaryKey``, the key earlier versions of Xid used (a 64-bit FNV-1a hash
/// of issuer, client and account, see ``TokenRecord/storageKey(issuer:clientId:account:)``), so that
/// their stored sessions, and released readers sharing the storage, still find it. Every load compares
/// the record's issuer, client and account with the configuration's: a record of another
/// configuration whose key collides with this one's is treated as absent and never deleted. This
/// configuration's record then goes to ``overflowKey``, derived from a second, independent hash, so
/// that both sessions live side by side.
struct AccountRecordStore: Sendable {
  /// Where this configuration's record is, or where a new one would go, and the record if there is one.
  struct Slot: Sendable {
    /// This configuration's record, `nil` when there is none.
    var record: TokenRecord?
    /// The key it lives under, or the key a new record goes to; `nil` when both keys of this
    /// configuration hold other configurations' records, so nothing can be stored.
    var key: String?
  }

  let storage: any TokenStorageAdapter
  let owner: RecordOwner
  /// The key of earlier versions of Xid.
  let primaryKey: String
  /// The key used when another configuration's record occupies ``primaryKey``.
  let overflowKey: String
  private let logger: any XidLogger
  /// Called after each write of this configuration's record (a save or a deletion) reached the
  /// storage: the engine posts its change signal there (see `SessionEngine.events()`).
  var didWrite: (@Sendable () -> Void)? = nil

  init(storage: any TokenStorageAdapter, owner: RecordOwner, logger: any XidLogger) {
    self.storage = storage
    self.owner = owner
    self.logger = logger
    primaryKey = TokenRecord.storageKey(issuer: owner.issuer, clientId: owner.clientId, account: owner.account)
    overflowKey = TokenRecord.overflowStorageKey(issuer: owner.issuer, clientId: owner.clientId, account: owner.account)
  }

  /// Reads this configuration's record: from the primary key, or from the overflow key when the
  /// primary one is free or holds another configuration's record.
  ///
  /// An unreadable record is removed (it holds no session anyone can use); a record of a format this
  /// version cannot read is left alone and reported, unless it names another configuration.
  ///
  /// - Parameter replacingUnreadable: for a save that replaces the record whatever it holds (a
  ///   sign-in): a record of this configuration that this version cannot read counts as a free slot.
  /// - Throws: ``XidError/Code/unsupportedRecordFormat``, and storage errors.
  func read(replacingUnreadable: Bool = false) throws -> Slot {
    func unreadable(_ error: XidError, at key: String) throws -> Slot {
      guard replacingUnreadable else { throw error }
      return Slot(record: nil, key: key)
    }
    switch try inspect(primaryKey) {
    case .ours(let record): return Slot(record: record, key: primaryKey)
    case .oursUnreadable(let error): return try unreadable(error, at: primaryKey)
    case .free:
      switch try inspect(overflowKey) {
      case .ours(let record): return Slot(record: record, key: overflowKey)
      case .oursUnreadable(let error): return try unreadable(error, at: overflowKey)
      case .free, .foreign: return Slot(record: nil, key: primaryKey)
      }
    case .foreign:
      switch try inspect(overflowKey) {
      case .ours(let record): return Slot(record: record, key: overflowKey)
      case .oursUnreadable(let error): return try unreadable(error, at: overflowKey)
      case .free: return Slot(record: nil, key: overflowKey)
      case .foreign: return Slot(record: nil, key: nil)
      }
    }
  }

  /// Deletes this configuration's record wherever it is, also one of a format this version cannot
  /// read (sign-out); other configurations' records stay.
  ///
  /// - Returns: the record deleted, when it could be read (its refresh token is then revoked).
  @discardableResult
  func deleteOwn() throws -> TokenRecord? {
    var deleted: TokenRecord?
    for key in [primaryKey, overflowKey] {
      switch try inspect(key) {
      case .ours(let record):
        try storage.delete(key: key)
        deleted = deleted ?? record
      case .oursUnreadable:
        try storage.delete(key: key)
      case .free, .foreign:
        break
      }
    }
    didWrite?()
    return deleted
  }

  /// Saves `record` under `key` (from ``read()``).
  ///
  /// - Throws: ``XidError/Code/storageFailure`` when `key` is `nil`: both keys of this configuration
  ///   hold other configurations' records (three colliding configurations), which stay as they are.
  func save(_ record: TokenRecord, at key: String?) throws {
    guard let key else {
      throw XidError(
        .storageFailure,
        "both storage keys of this configuration (\(owner)) hold other configurations' records; they were left as they are and this session was not stored. Use another account name"
      )
    }
    try storage.save(key: key, value: record.encoded())
    didWrite?()
  }

  /// Deletes the record under `key` (from ``read()``, where this configuration's record was found).
  func delete(at key: String?) throws {
    guard let key else { return }
    try storage.delete(key: key)
    didWrite?()
  }

  private enum Content {
    case free
    case ours(TokenRecord)
    /// A record of a format this version cannot read, which names this configuration or none.
    case oursUnreadable(XidError)
    case foreign
  }

  private func inspect(_ key: String) throws -> Content {
    guard let text = try storage.load(key: key) else { return .free }
    do {
      let record = try TokenRecord(decoding: text)
      guard owner.owns(record) else {
        logger.log(
          .notice, category: "storage", "a record under this configuration's key belongs to another one; left as it is")
        return .foreign
      }
      return .ours(record)
    } catch let error as XidError where error.code == .unsupportedRecordFormat {
      if let other = TokenRecord.owner(ofUndecodable: text), other != owner { return .foreign }
      logger.log(.error, category: "storage", error.reason)
      return .oursUnreadable(error)
    } catch let error as XidError {
      logger.log(.notice, category: "storage", "removed an unreadable token record: \(error.reason)")
      try storage.delete(key: key)
      return .free
    }
  }
}
