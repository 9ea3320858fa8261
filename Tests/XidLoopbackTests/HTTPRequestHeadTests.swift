import Foundation
import Testing
import XidCore

@testable import XidLoopback

struct HTTPRequestHeadTests {
  private func parse(_ text: String, maxHeaderFields: Int = 64) throws -> HTTPRequestHead {
    try HTTPRequestHead.parse(ArraySlice(text.utf8), maxHeaderFields: maxHeaderFields)
  }

  @Test func parsesRequestLineAndFieldsTrimmingWhitespace() throws {
    let head = try parse("PATCH /a/b?c=d HTTP/1.0\r\nHost: 127.0.0.1:8080\r\nX-Tab:\tv a l \t")
    #expect(head.method == "PATCH")
    #expect(head.target == "/a/b?c=d")
    #expect(head.minorVersion == 0)
    #expect(head.headers.fields.map { "\($0.name)=\($0.value)" } == ["Host=127.0.0.1:8080", "X-Tab=v a l"])
  }

  @Test func readsContentLengthIncludingRepeatedEqualValues() throws {
    #expect(try parse("POST / HTTP/1.1\r\nContent-Length: 12").bodyLength(maxBodyBytes: 100) == 12)
    #expect(try parse("POST / HTTP/1.1\r\nContent-Length: 7, 7").bodyLength(maxBodyBytes: 100) == 7)
    #expect(try parse("GET / HTTP/1.1").bodyLength(maxBodyBytes: 100) == 0)
  }

  @Test(arguments: ["-1", "+1", "1 2", "", "0x10", "99999999999999999999"])
  func refusesContentLengthThatIsNotADecimalNumber(value: String) throws {
    #expect(throws: HTTPRequestRejection.self) {
      try parse("POST / HTTP/1.1\r\nContent-Length: \(value)").bodyLength(maxBodyBytes: 100)
    }
  }

  @Test func scannerFindsTheEndOfTheHeadAcrossChunks() throws {
    var scanner = HTTPHeadScanner()
    var buffer = Array("GET / HTTP/1.1\r\nHost: x\r".utf8)
    #expect(try scanner.scan(buffer) == nil)
    buffer += Array("\n\r".utf8)
    #expect(try scanner.scan(buffer) == nil)
    buffer += Array("\nbody".utf8)
    #expect(try scanner.scan(buffer) == buffer.count - 4)
  }

  @Test func encoderWritesStatusFieldsLengthAndClose() {
    let bytes = HTTPResponseEncoder.encode(
      HTTPResponse(status: 404, headers: ["X-A": "b"], body: Data("no".utf8)), forMethod: "GET")
    #expect(
      String(decoding: bytes, as: UTF8.self)
        == "HTTP/1.1 404 Not Found\r\nX-A: b\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno")
  }

  @Test func encoderSendsNoBodyFor204() {
    let bytes = HTTPResponseEncoder.encode(HTTPResponse(status: 204, body: Data("x".utf8)), forMethod: "GET")
    #expect(String(decoding: bytes, as: UTF8.self) == "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
  }
}
