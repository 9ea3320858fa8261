import Foundation
import Testing
import Xid

/// The articles of the documentation catalog (Sources/Xid/Xid.docc) that promise to be complete:
/// every error code explained, every security checklist item proved by a test that exists.
struct DocumentationTests {
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  static func text(_ path: String) throws -> String {
    try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
  }

  @Test func everyErrorCodeIsExplainedInTheErrorsArticle() throws {
    let article = try Self.text("Sources/Xid/Xid.docc/Articles/Errors.md")
    // One list item per code: "- ``XidError/Code/name``: what it means, and what to do."
    let item = /^- ``XidError\/Code\/(\w+)``: \S/.anchorsMatchLineEndings()
    let explained = article.matches(of: item).map { String($0.output.1) }
    let codes = XidError.Code.allCases.map(\.rawValue)
    #expect(Set(codes).subtracting(explained).sorted() == [], "codes that Errors.md does not explain")
    #expect(Set(explained).subtracting(codes).sorted() == [], "Errors.md explains codes that do not exist")
    #expect(explained.count == Set(explained).count, "Errors.md explains a code twice")
  }

  @Test func allCasesListsEveryDeclaredCode() throws {
    let source = try Self.text("Sources/XidJOSE/Errors/XidError+Code.swift")
    let declaration = /public static let (\w+) = Self\("(\w+)"\)/
    let declared = source.matches(of: declaration).map { match in
      #expect(match.output.1 == match.output.2, "\(match.output.1) has the raw value \(match.output.2)")
      return String(match.output.1)
    }
    #expect(declared.count > 40)
    #expect(XidError.Code.allCases.map(\.rawValue) == declared, "allCases differs from the declared codes")
  }

  @Test func everySecurityChecklistItemNamesATestThatExists() throws {
    let article = try Self.text("Sources/Xid/Xid.docc/Articles/SecurityModel.md")
    let files = try Self.testSources()
    let rows = article.split(separator: "\n").filter {
      $0.hasPrefix("| ") && !$0.hasPrefix("| requirement") && !$0.hasPrefix("| ---")
    }
    #expect(rows.count >= 20)
    for row in rows {
      let provedBy = row.split(separator: "|").last ?? ""
      let references = provedBy.matches(of: /`(\w+)\/(\w+)\(\)`/).map { (String($0.output.1), String($0.output.2)) }
      #expect(!references.isEmpty, "a checklist item names no test: \(row.prefix(80))")
      for (suite, test) in references {
        let found = files.contains { $0.types.contains(suite) && $0.functions.contains(test) }
        #expect(found, "SecurityModel.md names \(suite)/\(test)(), which is not a test in Tests/")
      }
    }
  }

  /// The types and functions each Swift file under Tests/ declares.
  static func testSources() throws -> [(types: Set<String>, functions: Set<String>)] {
    let directory = packageRoot.appendingPathComponent("Tests")
    let files =
      FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
      .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
    #expect(files.count > 50)
    return try files.map { file in
      let words = try String(contentsOf: file, encoding: .utf8)
        .split { !($0.isLetter || $0.isNumber || $0 == "_") }
      var types = Set<String>()
      var functions = Set<String>()
      for (keyword, name) in zip(words, words.dropFirst()) {
        switch keyword {
        case "struct", "class", "enum", "actor", "extension": types.insert(String(name))
        case "func": functions.insert(String(name))
        default: break
        }
      }
      return (types, functions)
    }
  }
}
