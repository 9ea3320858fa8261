// `import XidCore` is the whole portable core: its layers (docs/architecture.md), and the JOSE layer,
// which is part of its API (tokens, keys, XidError).
@_exported import XidDevice
@_exported import XidJOSE
@_exported import XidProtocol
@_exported import XidSession
