import Foundation

/// Times and durations as people read them.
enum TimeText {
  /// `4:59`, or `1:02:03` past an hour; never negative.
  static func countdown(_ seconds: TimeInterval) -> String {
    let total = max(0, Int(seconds.rounded(.up)))
    let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
    let tail = String(format: "%02d", secs)
    return hours > 0 ? "\(hours):\(String(format: "%02d", minutes)):\(tail)" : "\(minutes):\(tail)"
  }

  /// `5 minutes`, `1 minute`, `45 seconds`, `2 hours`: the largest unit, rounded.
  static func words(_ seconds: TimeInterval) -> String {
    let total = max(0, Int(seconds.rounded()))
    func plural(_ n: Int, _ unit: String) -> String { "\(n) \(unit)\(n == 1 ? "" : "s")" }
    if total >= 7200 { return plural(Int((Double(total) / 3600).rounded()), "hour") }
    if total >= 120 { return plural(Int((Double(total) / 60).rounded()), "minute") }
    return plural(total, "second")
  }

  /// `in 4 min 59 s` or `2 min 5 s ago`, relative to `now`.
  static func relative(_ date: Date, now: Date = Date()) -> String {
    let delta = date.timeIntervalSince(now)
    let total = Int(abs(delta).rounded())
    var parts: [String] = []
    if total >= 86_400 { parts.append("\(total / 86_400) d") }
    if total >= 3600 { parts.append("\(total / 3600 % 24) h") }
    if total >= 60 && total < 86_400 { parts.append("\(total / 60 % 60) min") }
    if total < 3600 { parts.append("\(total % 60) s") }
    let text = parts.joined(separator: " ")
    return delta >= 0 ? "in \(text)" : "\(text) ago"
  }

  /// `2025-11-29 14:35:00 UTC`.
  static func timestamp(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
    return formatter.string(from: date)
  }
}
