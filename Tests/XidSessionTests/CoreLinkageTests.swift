import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// What a program that links `XidCore` alone loads: the read path of a stored token must not bring in
/// FoundationNetworking and libcurl (they cost most of a command-line program's cold start).
@Suite struct CoreLinkageTests {
  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/maps"), "needs /proc/self/maps (Linux)"))
  func aProgramThatLinksXidCoreAloneReadsItsTokenWithoutLoadingANetworkingLibrary() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xid-core-linkage-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let provider = try TestProvider()
    let configuration = XidConfiguration(
      issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0],
      transport: provider.transport, clock: SystemClock(), userAgent: provider.userAgent)
    let xid = try Xid(configuration: configuration, storage: try FileTokenStorage(directory: directory))
    try await xid.signIn()
    let token = try await xid.getAccessToken()

    let run = try await runProcess(builtExecutable(named: "XidCoreColdStart"), ["--loaded-libraries", directory.path])
    #expect(run.status == 0, "XidCoreColdStart failed: \(run.standardError)")
    let lines = run.standardOutput.split(separator: "\n").map(String.init)
    #expect(lines.first == String(token.utf8.count), "the core alone reads the stored token")
    let libraries = lines.dropFirst().map { $0.split(separator: "/").last.map(String.init) ?? $0 }
    // The whole list: /proc/self/maps reports a size of 0, and a list read only in part can lack the
    // networking library as well as these two.
    #expect(libraries.contains("libswiftCore.so"), "the list of loaded libraries is complete: \(libraries)")
    #expect(libraries.contains("libFoundation.so"), "the list of loaded libraries is complete: \(libraries)")
    #expect(!libraries.contains { $0.contains("libFoundationNetworking") })
    #expect(!libraries.contains { $0.contains("libcurl") })
  }
}
