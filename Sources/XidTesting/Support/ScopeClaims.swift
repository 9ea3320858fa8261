import XidCore

/// The claims each standard scope releases (OpenID Connect Core §5.4).
enum ScopeClaims {
  static let byScope: [String: [String]] = [
    "profile": [
      "name", "family_name", "given_name", "middle_name", "nickname", "preferred_username", "profile", "picture",
      "website", "gender", "birthdate", "zoneinfo", "locale", "updated_at",
    ],
    "email": ["email", "email_verified"],
    "address": ["address"],
    "phone": ["phone_number", "phone_number_verified"],
  ]

  /// Every claim name a scope can release.
  static var all: [String] { byScope.values.flatMap { $0 }.sorted() }

  /// The claims of `user` that `scopes` release.
  static func released(from user: TestUser, for scopes: [String]) -> [String: JSONValue] {
    var released: [String: JSONValue] = [:]
    for scope in scopes {
      for name in byScope[scope] ?? [] { released[name] = user.claims[name] }
    }
    return released
  }
}
