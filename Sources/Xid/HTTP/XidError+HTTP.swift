extension XidError.Code {
  /// No HTTP response arrived: no connection, a reset, a timeout. The session is kept; try again later.
  public static let networkFailure = Self(rawValue: "networkFailure")
  /// A URL was refused because it is not HTTPS (plain HTTP is allowed for loopback hosts only).
  public static let insecureURL = Self(rawValue: "insecureURL")
  /// A response was larger than Xid accepts from that endpoint.
  public static let responseTooLarge = Self(rawValue: "responseTooLarge")
  /// A server answered with a status or body that the protocol does not allow.
  public static let unexpectedResponse = Self(rawValue: "unexpectedResponse")
}
