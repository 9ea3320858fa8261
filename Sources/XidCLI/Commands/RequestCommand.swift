import Foundation
import Xid

/// `xid request URL`: an authorized request (``Xid/send(_:)``), the body printed like curl does.
enum RequestCommand {
  static func run(_ options: RequestOptions, profile name: ProfileName, verbose: Bool, context: CLIContext)
    async throws -> ExitCode
  {
    // `--resource URL`: this request's URL carries that resource's token (RFC 8707).
    let resource = options.resource.map { ProtectedResource($0, urlPrefixes: [options.url]) }
    let xid = try context.xid(for: context.resolvedProfile(name), named: name, verbose: verbose, resource: resource)
    var request = HTTPRequest(method: options.effectiveMethod, url: options.url)
    for header in options.headers { request.headers.append(name: header.name, value: header.value) }
    if let data = options.data {
      request.body = try body(data)
      if request.headers["Content-Type"] == nil {
        request.headers["Content-Type"] = "application/x-www-form-urlencoded"
      }
    }
    let response = try await xid.send(request)
    let console = context.console
    if options.include {
      var head = "HTTP \(response.status)\r\n"
      for field in response.headers { head += "\(field.name): \(field.value)\r\n" }
      console.writeOut(head + "\r\n")
    }
    console.stdout(response.body)
    guard response.isSuccess || (300..<400).contains(response.status) else {
      console.err("xid: the server answered HTTP \(response.status)")
      return .failure
    }
    return .success
  }

  /// The body of `-d`: the text itself, `@FILE`'s content, or standard input for `@-`.
  private static func body(_ data: String) throws -> Data {
    guard data.hasPrefix("@") else { return Data(data.utf8) }
    let path = String(data.dropFirst())
    if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
    return try ArgumentFile.read(path, as: "the body")
  }
}
