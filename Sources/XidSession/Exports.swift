// The layers below are part of the session's API (the configuration, presence, DPoP keys, XidError).
@_exported import XidDevice
@_exported import XidProtocol
