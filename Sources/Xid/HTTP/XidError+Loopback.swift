extension XidError.Code {
  /// The loopback HTTP server (the redirect listener of desktop sign-in, or the test provider) could
  /// not start: the port is taken, or the process is out of file descriptors. The reason names the
  /// system error.
  public static let loopbackServerFailure = Self(rawValue: "loopbackServerFailure")
}
