/// What a sign-out did. The local session is always deleted first, whatever the network does; this
/// says what became of its refresh token at the provider, so that an app (or `xid logout`) can tell
/// the user whether the provider still honours it.
///
/// ```swift
/// let result = try await Xid.shared.signOut()
/// if let revocation = result.revocation, !revocation.isRevoked {
///   // Signed out here; the provider may still accept the refresh token until it expires.
/// }
/// ```
public struct SignOutResult: Sendable, Hashable, CustomStringConvertible {
  /// What became of the session's refresh token at the provider (RFC 7009): revoked, not revocable
  /// (and why), or failed (and how). `nil` when there was no session to revoke: nobody was signed in,
  /// or the stored session was in a format this version cannot read (it is deleted all the same).
  public let revocation: RevocationOutcome?

  /// What became of the app family's device secret at the provider, for a
  /// ``SignOutScope/family`` sign-out that found the family's record; `nil` otherwise.
  public let deviceSecretRevocation: RevocationOutcome?

  /// Creates a result.
  public init(revocation: RevocationOutcome?, deviceSecretRevocation: RevocationOutcome? = nil) {
    self.revocation = revocation
    self.deviceSecretRevocation = deviceSecretRevocation
  }

  /// Whether a session was signed out (one that this version could read).
  public var signedSomeoneOut: Bool { revocation != nil }

  /// `SignOutResult(revocation: …)`, or `SignOutResult(nobody was signed in)`; never a token.
  public var description: String {
    let deviceSecret = deviceSecretRevocation.map { ", device secret: \($0)" } ?? ""
    return "SignOutResult(\(revocation.map { "revocation: \($0)" } ?? "nobody was signed in")\(deviceSecret))"
  }
}

/// Whom a sign-out signs out, for an app of an app family (``ClientIdentity/family``).
public enum SignOutScope: Sendable, Hashable {
  /// This app alone: the family's other apps stay signed in, and can sign this one in again.
  case thisApp
  /// The whole family: the family's record goes first (no app can sign in from it again), its
  /// device secret is revoked, and every other app of the family ends its session at its next
  /// refresh, launch or session event.
  case family
}
