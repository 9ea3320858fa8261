// Xid: an OpenID Connect and OAuth 2.0 client. This module re-exports the JOSE layer it is built on,
// so `import Xid` gives access to tokens, keys and errors alike.
@_exported import XidJOSE
