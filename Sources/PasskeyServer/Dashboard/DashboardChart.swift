import Foundation
import PasskeyStorage

/// Inline SVG charts (no chart library, no script): one bar group per hour. Colours are presentation attributes, which
/// the CSP allows, not inline styles.
enum DashboardChart {
    static let width = 672.0
    static let height = 120.0

    /// Registrations and sign-ins per hour, stacked.
    static func activity(_ hours: [EventHourCount]) -> String {
        let peak = max(1, hours.map { $0.registrations + $0.signIns }.max() ?? 1)
        let step = width / Double(max(1, hours.count))
        var bars = ""
        for (index, hour) in hours.enumerated() {
            let x = Double(index) * step
            let signInHeight = Double(hour.signIns) / Double(peak) * (height - 10)
            let registrationHeight = Double(hour.registrations) / Double(peak) * (height - 10)
            if hour.signIns > 0 {
                bars += rect(x: x, y: height - signInHeight, width: step, height: signInHeight, fill: "#2f6f9f", title: "\(label(hour.hour)): \(hour.signIns) sign-ins")
            }
            if hour.registrations > 0 {
                bars += rect(
                    x: x, y: height - signInHeight - registrationHeight, width: step, height: registrationHeight, fill: "#3f9f6f",
                    title: "\(label(hour.hour)): \(hour.registrations) registrations")
            }
        }
        return svg(label: "Registrations and sign-ins per hour; peak \(peak) per hour", content: bars + axis(hours, peak: "\(peak)/h"))
    }

    /// Failed ceremonies as a share of all completed and failed ones, per hour.
    static func failureRate(_ hours: [EventHourCount]) -> String {
        let step = width / Double(max(1, hours.count))
        var bars = ""
        for (index, hour) in hours.enumerated() {
            let attempts = hour.registrations + hour.signIns + hour.failures
            guard attempts > 0, hour.failures > 0 else { continue }
            let share = Double(hour.failures) / Double(attempts)
            let barHeight = share * (height - 10)
            bars += rect(
                x: Double(index) * step, y: height - barHeight, width: step, height: barHeight, fill: "#b5473a",
                title: "\(label(hour.hour)): \(Int((share * 100).rounded())) % failed (\(hour.failures) of \(attempts))")
        }
        return svg(label: "Failure rate per hour", content: bars + axis(hours, peak: "100 %"))
    }

    static func svg(label: String, content: String) -> String {
        """
        <svg class="chart" viewBox="0 0 \(Int(width)) \(Int(height + 16))" preserveAspectRatio="none" role="img" aria-label="\(DashboardPages.escape(label))">\
        \(content)</svg>
        """
    }

    static func rect(x: Double, y: Double, width: Double, height: Double, fill: String, title: String) -> String {
        "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(max(width - 0.5, 0.5)))\" height=\"\(f(height))\" fill=\"\(fill)\"><title>\(DashboardPages.escape(title))</title></rect>"
    }

    /// The baseline, day separators and the scale's top value.
    static func axis(_ hours: [EventHourCount], peak: String) -> String {
        let step = width / Double(max(1, hours.count))
        var lines = "<line x1=\"0\" y1=\"\(height)\" x2=\"\(width)\" y2=\"\(height)\" stroke=\"#888\" stroke-width=\"1\"/>"
        for (index, hour) in hours.enumerated() where Int(hour.hour.timeIntervalSince1970) % 86_400 == 0 {
            let x = Double(index) * step
            lines += "<line x1=\"\(f(x))\" y1=\"0\" x2=\"\(f(x))\" y2=\"\(f(height))\" stroke=\"#ccc\" stroke-width=\"1\"/>"
            // The current day starts close to the right edge: its label ends at the edge instead of running past it.
            let fits = x + 44 <= width
            lines += "<text x=\"\(f(fits ? x + 2 : width - 2))\" y=\"\(f(height + 12))\" font-size=\"10\" fill=\"#666\"\(fits ? "" : " text-anchor=\"end\"")>\(day(hour.hour))</text>"
        }
        lines += "<text x=\"\(width - 2)\" y=\"10\" font-size=\"10\" fill=\"#666\" text-anchor=\"end\">\(DashboardPages.escape(peak))</text>"
        return lines
    }

    static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    static func label(_ date: Date) -> String { DashboardPages.date(date) }

    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE d"
        return formatter.string(from: date)
    }
}
