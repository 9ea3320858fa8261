import XidCore

/// The person at the provider's login page, played by the test: who they are and what they do when
/// a client sends them to the authorization endpoint or the device verification page.
///
/// ```swift
/// await provider.setUser(TestUser(subject: "bob", claims: ["name": "Bob"], behavior: .deny))
/// ```
public struct TestUser: Sendable, Hashable {
  /// What the user does at the authorization endpoint.
  public enum Behavior: Sendable, Hashable {
    /// Signs in when needed and approves the request. The default.
    case approve
    /// Refuses: the client receives `error=access_denied`.
    case deny
    /// Has to sign in again: with `prompt=none` the client receives `error=login_required`;
    /// otherwise the user signs in (a new `auth_time` and `sid`) and approves.
    case requireLogin
    /// Has not consented to this client yet: with `prompt=none` the client receives
    /// `error=consent_required`; otherwise the user consents and approves.
    case requireConsent
  }

  /// The `sub` the provider issues for this user.
  public var subject: String
  /// The user's claims, released by scope: `profile` releases `name`, `given_name`, `family_name`,
  /// `preferred_username` and the other profile claims present here; `email` releases `email` and
  /// `email_verified`; `address` and `phone` likewise (OpenID Connect Core §5.4).
  public var claims: [String: JSONValue]
  /// What the user does when asked.
  public var behavior: Behavior

  /// Creates a user.
  public init(subject: String, claims: [String: JSONValue] = [:], behavior: Behavior = .approve) {
    self.subject = subject
    self.claims = claims
    self.behavior = behavior
  }

  /// Alice, who approves: subject `alice`, name `Alice Example`, verified email `alice@example.com`.
  public static let alice = TestUser(
    subject: "alice",
    claims: [
      "name": "Alice Example", "given_name": "Alice", "family_name": "Example",
      "preferred_username": "alice", "email": "alice@example.com", "email_verified": true,
    ])
}
