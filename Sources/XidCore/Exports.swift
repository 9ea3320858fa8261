// The JOSE layer is part of the core's API (tokens, keys, XidError), so `import XidCore` brings it too.
@_exported import XidJOSE
