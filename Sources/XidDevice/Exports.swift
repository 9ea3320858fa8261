// The protocol layer is part of this layer's API (the configuration, DPoP keys, XidError).
@_exported import XidProtocol
