import Foundation

/// The `token_type` of an access token (RFC 6749 §7.1), compared case-insensitively as RFC 6749
/// §5.1 requires: providers send `Bearer`, `bearer` and `BEARER` alike.
public enum TokenType: String, Sendable, Hashable, Codable, CustomStringConvertible {
  /// A bearer token (RFC 6750): sent as `Authorization: Bearer …`.
  case bearer = "Bearer"
  /// A DPoP-bound token (RFC 9449): sent as `Authorization: DPoP …` with a DPoP proof.
  case dpop = "DPoP"

  /// Reads a `token_type` value case-insensitively; `nil` for any other type.
  public init?(parsing value: String) {
    switch value.lowercased() {
    case "bearer": self = .bearer
    case "dpop": self = .dpop
    default: return nil
    }
  }

  /// The canonical name, `Bearer` or `DPoP`.
  public var description: String { rawValue }
}
