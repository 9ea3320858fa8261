import Foundation

/// A user signed in to an app family, as another app of the family shows them before it signs in
/// from the family ("Continue as Alice"): display claims, never a token or the device secret.
public struct FamilyAccount: Sendable, Hashable, Identifiable, CustomStringConvertible {
  /// Names the family record, stable while the user stays signed in to the family.
  public let id: String
  /// The provider's issuer identifier.
  public let issuer: String
  /// The user's `sub` at ``issuer``.
  public let subject: String
  /// The user's `name` claim, when the ID token had one.
  public let name: String?
  /// The user's `email` claim, when the ID token had one.
  public let email: String?
  /// The user's `picture` claim, when the ID token had one that is a URL.
  public let picture: URL?
  /// The client identifier of the app whose sign-in the family keeps.
  public let clientId: String
  /// When the family signed the user in.
  public let signedInAt: Date

  /// Creates an account as a family record describes it.
  public init(
    id: String, issuer: String, subject: String, name: String?, email: String?, picture: URL?, clientId: String,
    signedInAt: Date
  ) {
    self.id = id
    self.issuer = issuer
    self.subject = subject
    self.name = name
    self.email = email
    self.picture = picture
    self.clientId = clientId
    self.signedInAt = signedInAt
  }

  /// What to call the user: their name, else their email address, else their `sub`.
  public var displayName: String { name ?? email ?? subject }

  /// `FamilyAccount(Alice, issuer: …, client: …)`.
  public var description: String { "FamilyAccount(\(displayName), issuer: \(issuer), client: \(clientId))" }
}
