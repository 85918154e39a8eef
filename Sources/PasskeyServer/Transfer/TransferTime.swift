import Foundation

/// The times of transfer files: RFC 3339 in UTC with milliseconds when written (`2026-11-21T10:00:00.123Z`); read with
/// or without a fraction, with `Z` or a `±hh:mm` offset.
///
/// Written here rather than with `ISO8601DateFormatter`: on Linux that formatter goes through ICU, which cost over half
/// the CPU of importing a million accounts (a record has up to five times), and it needs a lock.
enum TransferTime {
    /// `date` to the millisecond, in UTC.
    static func format(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        // Floor division, so that times before 1970 count back from the day before.
        func floorDivision(_ value: Int64, _ divisor: Int64) -> Int64 { value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor) }
        let seconds = floorDivision(milliseconds, 1000)
        let millisecond = milliseconds - seconds * 1000
        let day = floorDivision(seconds, 86_400)
        let second = seconds - day * 86_400
        let (year, month, dayOfMonth) = civil(fromDays: day)
        func digits(_ value: Int64, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return "\(digits(year, 4))-\(digits(month, 2))-\(digits(dayOfMonth, 2))T\(digits(second / 3_600, 2)):\(digits(second / 60 % 60, 2)):\(digits(second % 60, 2)).\(digits(millisecond, 3))Z"
    }

    /// The time in `text`, or nil when it is not an RFC 3339 date-time (years 0001–9999; seconds 00–59).
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2), expect("T"),
            let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2),
            year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var nanoseconds: Int64 = 0
        if expect(".") {
            var count = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                if count < 9 { nanoseconds = nanoseconds * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
                count += 1
                index += 1
            }
            guard (1...9).contains(count) else { return nil }
            for _ in count..<9 { nanoseconds *= 10 }
        }
        var offset: Int64 = 0
        if expect("Z") {
            offset = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2), expect(":"), let offsetMinutes = number(2), offsetHours < 24, offsetMinutes < 60 else { return nil }
            offset = sign * (offsetHours * 3_600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the well-known era-based conversion).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day counted from 1970-01-01 (the inverse of ``days(year:month:day:)``).
    static func civil(fromDays count: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = count + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
