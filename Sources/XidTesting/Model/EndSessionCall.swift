import Foundation

extension TestProvider {
  /// A request the end-session endpoint received, as RP-initiated logout sends it, recorded so tests
  /// can check what the client sent.
  public struct EndSessionCall: Sendable, Hashable, CustomStringConvertible {
    /// The `id_token_hint`, as sent. Not shown in ``description``.
    public let idTokenHint: String?
    /// The `sub` of the `id_token_hint`, when it was an ID token this provider issued.
    public let hintedSubject: String?
    /// The `client_id`, as sent.
    public let clientId: String?
    /// The `post_logout_redirect_uri`, as sent.
    public let postLogoutRedirectUri: String?
    /// The `state`, as sent.
    public let state: String?
    /// The `logout_hint`, as sent.
    public let logoutHint: String?

    /// The parameters present, without token material.
    public var description: String {
      var parts: [String] = []
      if idTokenHint != nil { parts.append("id_token_hint: present") }
      if let hintedSubject { parts.append("sub: \(hintedSubject)") }
      if let clientId { parts.append("client_id: \(clientId)") }
      if let postLogoutRedirectUri { parts.append("post_logout_redirect_uri: \(postLogoutRedirectUri)") }
      if state != nil { parts.append("state: present") }
      return "EndSessionCall(\(parts.joined(separator: ", ")))"
    }
  }
}
