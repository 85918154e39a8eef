/// The packed tables `scripts/generate-unicode-tables.py` writes: one `UInt64` per run of code points that share a
/// value, sorted, `first << 32 | last << 8 | value`.
enum CodePointRanges {
    /// The value of the run holding `scalar`; nil when no run does.
    static func value(of scalar: Unicode.Scalar, in ranges: [UInt64]) -> UInt8? {
        let code = UInt64(scalar.value)
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            let entry = ranges[middle]
            if code < entry >> 32 {
                high = middle
            } else if code > (entry >> 8) & 0xFF_FFFF {
                low = middle + 1
            } else {
                return UInt8(truncatingIfNeeded: entry)
            }
        }
        return nil
    }
}
