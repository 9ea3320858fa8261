import XidCore

extension XidConfiguration {
  /// This configuration with `storage` as its token store (``SessionParts/storage``), for a test
  /// that makes its storage after the configuration.
  package func storing(in storage: any TokenStorageAdapter) -> XidConfiguration {
    var configuration = self
    configuration.parts.storage = storage
    return configuration
  }

  /// This configuration sending through `transport`, on `clock` when one is given
  /// (``SessionParts/transport``, ``SessionParts/clock``), for an `OpenIDClient` under test.
  package func using(transport: any HTTPTransport, clock: (any XidClock)? = nil) -> XidConfiguration {
    var configuration = self
    configuration.parts.transport = transport
    if let clock { configuration.parts.clock = clock }
    return configuration
  }
}
