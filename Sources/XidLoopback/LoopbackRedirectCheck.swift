import Foundation
import XidCore

/// What the loopback listener does with a request to the redirect path while a sign-in waits for its
/// `state` (RFC 8252 §7.3; the rules are listed in ``LoopbackUserAgent``'s documentation).
enum LoopbackRedirectCheck: Equatable {
  /// The provider's answer: hand it to the sign-in (which checks it fully). `error` is the answer's
  /// OAuth error, when it is one.
  case answer(error: String?)
  /// Not this sign-in's: another sign-in's `state`, or a method that carries no answer. Answer 404
  /// and keep waiting.
  case stray
  /// A malformed answer, or one Xid cannot read: end the sign-in with this error now.
  case malformed(XidError)

  /// Judges a request to the redirect path of a sign-in that waits for `state`.
  static func judge(method: String, url: URL, state: String) -> LoopbackRedirectCheck {
    if method == "POST" {
      return .malformed(
        XidError(
          .invalidAuthorizationResponse,
          "the provider posted its answer to the loopback listener (response_mode=form_post); Xid reads the answer from the query of the redirect (response_mode=query)"
        ))
    }
    guard method == "GET" else { return .stray }
    let parameters = url.queryParameters
    guard !parameters.isEmpty else {
      return .malformed(
        XidError(
          .invalidAuthorizationResponse,
          "the redirect to the loopback listener carried no query parameters: the provider answered with none, or in the URL fragment, which browsers do not send on; Xid reads the answer from the query (response_mode=query)"
        ))
    }
    let states = parameters.filter { $0.0 == "state" }.map(\.1)
    guard states.contains(where: { SafeText.constantTimeEquals($0, state) }) else {
      if states.contains(where: { !$0.isEmpty }) { return .stray }
      return .malformed(
        XidError(
          .stateMismatch,
          "the redirect to the loopback listener has no state, so it answers no sign-in of this program; check the provider's redirect and start the sign-in again"
        ))
    }
    var seen: Set<String> = []
    for (name, _) in parameters where !seen.insert(name).inserted {
      return .malformed(
        XidError(
          .invalidAuthorizationResponse,
          "the authorization response repeats the parameter \"\(SafeText.short(name, limit: 40))\" (RFC 6749 §3.1)"))
    }
    let code = parameters.first { $0.0 == "code" }?.1 ?? ""
    let error = parameters.first { $0.0 == "error" }?.1 ?? ""
    guard !code.isEmpty || !error.isEmpty else {
      return .malformed(
        XidError(.invalidAuthorizationResponse, "the authorization response has neither code nor error"))
    }
    return .answer(error: error.isEmpty ? nil : SafeText.errorCode(error))
  }

  /// The page the browser shows when the sign-in could not be completed: what went wrong, and that
  /// the program says more.
  static func failurePage(_ what: String) -> String {
    """
    <!doctype html><html><head><meta charset="utf-8"><title>Sign-in failed</title></head>
    <body style="font-family: system-ui, sans-serif; margin: 3em"><h1>Sign-in failed</h1>
    <p>\(htmlEscaped(what))</p><p>You can close this window and return to the program.</p></body></html>
    """
  }

  /// `text` safe to put in an HTML element.
  static func htmlEscaped(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      default: escaped.append(character)
      }
    }
    return escaped
  }
}
