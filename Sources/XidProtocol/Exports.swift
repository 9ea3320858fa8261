// The JOSE layer is part of the protocol's API (tokens, keys, XidError).
@_exported import XidJOSE
