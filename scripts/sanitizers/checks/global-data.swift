// A `Data` kept in a global is reported by LeakSanitizer as a direct leak (65 bytes, and its 40 bytes
// of storage as an indirect one), although the global references it: `Data`'s representation is a
// multi-payload enum whose case sits in the spare bits of the storage pointer. The `[UInt8]` global
// is not reported.
import Foundation

struct Holder { static let page = Data(String(repeating: "x", count: 40).utf8) }
let bytes = Array(String(repeating: "y", count: 40).utf8)
print(Holder.page.count, bytes.count)
