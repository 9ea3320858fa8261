import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// What a program that links `XidCore` alone loads and runs: the read path of a stored token must not
/// bring in FoundationNetworking and libcurl (they cost most of a command-line program's cold start),
/// nor start OpenSSL (its initialisation costs more than the rest of the read path).
@Suite struct CoreLinkageTests {
  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/maps"), "needs /proc/self/maps (Linux)"))
  func aProgramThatLinksXidCoreAloneReadsItsTokenWithoutLoadingANetworkingLibrary() async throws {
    let stored = try await StoredToken()
    defer { stored.remove() }

    let run = try await runProcess(
      builtExecutable(named: "XidCoreColdStart"), ["--loaded-libraries", stored.directory.path])
    #expect(run.status == 0, "XidCoreColdStart failed: \(run.standardError)")
    let lines = run.standardOutput.split(separator: "\n").map(String.init)
    #expect(lines.first == String(stored.tokenLength), "the core alone reads the stored token")
    let libraries = lines.dropFirst().map { $0.split(separator: "/").last.map(String.init) ?? $0 }
    // The whole list: /proc/self/maps reports a size of 0, and a list read only in part can lack the
    // networking library as well as these two.
    #expect(libraries.contains("libswiftCore.so"), "the list of loaded libraries is complete: \(libraries)")
    #expect(libraries.contains("libFoundation.so"), "the list of loaded libraries is complete: \(libraries)")
    #expect(!libraries.contains { $0.contains("libFoundationNetworking") })
    #expect(!libraries.contains { $0.contains("libcurl") })
  }

  /// OpenSSL's libcrypto is loaded on the first cryptographic operation, not at start-up: loading it
  /// costs a reader of a stored token more memory than all of XidCore's own work.
  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/maps"), "needs /proc/self/maps (Linux)"))
  func aProgramThatLinksXidCoreAloneReadsItsTokenWithoutLoadingLibcrypto() async throws {
    let stored = try await StoredToken()
    defer { stored.remove() }

    let run = try await runProcess(
      builtExecutable(named: "XidCoreColdStart"), ["--loaded-libraries", stored.directory.path])
    #expect(run.status == 0, "XidCoreColdStart failed: \(run.standardError)")
    let libraries = run.standardOutput.split(separator: "\n").dropFirst()
    #expect(libraries.contains { $0.hasSuffix("/libswiftCore.so") }, "the list of loaded libraries is complete")
    #expect(!libraries.contains { $0.contains("libcrypto") })
  }

  #if canImport(Glibc)
    /// glibc's loader binds a call into another library on its first use and, with
    /// `LD_DEBUG=bindings`, reports each binding; the ones after "transferring control" are the
    /// program's own calls. None to or from libcrypto means no OpenSSL function ran on the read path,
    /// whether libcrypto is opened on first use (as XidJOSE does) or loaded at start-up (as a program
    /// that links libcurl does).
    @Test func aProgramThatLinksXidCoreAloneReadsItsTokenWithoutCallingOpenSSL() async throws {
      let stored = try await StoredToken()
      defer { stored.remove() }
      var environment = ProcessInfo.processInfo.environment
      environment["LD_BIND_NOW"] = nil  // would bind every call at start-up, before control is transferred
      environment["LD_DEBUG"] = "bindings,libs"

      let run = try await runProcess(
        builtExecutable(named: "XidCoreColdStart"), [stored.directory.path], environment: environment)
      #expect(run.status == 0, "XidCoreColdStart failed")
      #expect(run.standardOutput == "\(stored.tokenLength)\n", "the core alone reads the stored token")
      let lines = run.standardError.split(separator: "\n")
      let start = try #require(
        lines.firstIndex { $0.contains("transferring control") }, "the loader honours LD_DEBUG")
      let bindings = lines[start...].filter { $0.contains("binding file") }
      #expect(bindings.contains { $0.contains("swift_task_create") }, "calls are bound on first use")
      let intoLibcrypto = bindings.filter { $0.contains("libcrypto") }.compactMap {
        $0.split(separator: "`").last?.split(separator: "'").first
      }
      #expect(
        intoLibcrypto.isEmpty,
        "libcrypto symbols bound on the read path (\(intoLibcrypto.count)): \(intoLibcrypto.prefix(10))")
    }
  #endif
}

/// A sign-in against a TestProvider, its tokens stored in a FileTokenStorage directory of its own.
private struct StoredToken {
  let directory: URL
  let tokenLength: Int

  init() async throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("xid-core-linkage-\(UUID())")
    let provider = try TestProvider()
    let configuration = XidConfiguration(
      identity: ClientIdentity(
        issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
      parts: SessionParts(transport: provider.transport, clock: SystemClock(), userAgent: provider.userAgent))
    let xid = try Xid(configuration: configuration.storing(in: try FileTokenStorage(directory: directory)))
    try await xid.signIn()
    tokenLength = try await xid.getAccessToken().utf8.count
  }

  func remove() { try? FileManager.default.removeItem(at: directory) }
}
