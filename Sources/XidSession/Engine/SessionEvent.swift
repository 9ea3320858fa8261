/// A change of the account's session, seen in this process or made by another one that shares the
/// storage (an app, its extensions and widgets): `SessionEngine.events()`, `Xid.sessionEvents`.
///
/// An event carries no data, and never a token: read the session again
/// (`SessionEngine.session()`, `accessToken()`) for what it is now. Events are derived from the
/// stored record, which is the truth: a lost event costs nothing, and the next read tells.
public enum SessionEvent: Sendable, Hashable {
  /// A user signed in: there was no session, or another sign-in replaced the one there was.
  case signedIn
  /// The session ended: a sign-out, or the provider refused the refresh token.
  case signedOut
  /// The session's tokens were refreshed (the same sign-in, a later save).
  case refreshed
}

/// What the event derivation needs of a stored record: which sign-in it is and which save of it.
struct RecordMark: Sendable, Hashable {
  var signInID: String?
  var version: Int64

  init(signInID: String?, version: Int64) {
    self.signInID = signInID
    self.version = version
  }

  init(_ record: TokenRecord) { self.init(signInID: record.signInID, version: record.version) }
}

extension SessionEvent {
  /// The event that leads from the record last known to the one read now: none → a record is
  /// ``signedIn``, a record → none ``signedOut``, the same sign-in at a later version
  /// ``refreshed``, another sign-in ``signedIn``; `nil` when nothing changed (or a record went back
  /// to an older version, which a read of a slow replica may show: not an event).
  static func between(_ old: RecordMark?, _ new: RecordMark?) -> SessionEvent? {
    switch (old, new) {
    case (nil, nil): return nil
    case (nil, .some): return .signedIn
    case (.some, nil): return .signedOut
    case (.some(let old), .some(let new)):
      if old.signInID != new.signInID { return .signedIn }
      return new.version > old.version ? .refreshed : nil
    }
  }
}
