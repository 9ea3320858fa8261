import Foundation

/// A user signed in to an app family, as another app of the family shows them before it signs in
/// from the family ("Continue as Alice"): display claims, never a token or the device secret.
package struct FamilyAccount: Sendable, Hashable, Identifiable, CustomStringConvertible {
  /// Names the family record, stable while the user stays signed in to the family.
  package let id: String
  /// The provider's issuer identifier.
  package let issuer: String
  /// The user's `sub` at ``issuer``.
  package let subject: String
  /// The user's `name` claim, when the ID token had one.
  package let name: String?
  /// The user's `email` claim, when the ID token had one.
  package let email: String?
  /// The user's `picture` claim, when the ID token had one that is a URL.
  package let picture: URL?
  /// The client identifier of the app whose sign-in the family keeps.
  package let clientId: String
  /// When the family signed the user in.
  package let signedInAt: Date

  /// Creates an account as a family record describes it.
  package init(
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
  package var displayName: String { name ?? email ?? subject }

  /// `FamilyAccount(Alice, issuer: …, client: …)`.
  package var description: String { "FamilyAccount(\(displayName), issuer: \(issuer), client: \(clientId))" }
}
