import Foundation

/// CPU time this process has used, in seconds: in all (user + system), and the part spent in the kernel (system).
func processCPUSeconds() -> (total: Double, system: Double) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return (user + system, system)
}

/// Context switches of this process so far (voluntary: a thread waited; involuntary: it was preempted).
func processContextSwitches() -> (voluntary: Int, involuntary: Int) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return (usage.ru_nvcsw, usage.ru_nivcsw)
}

/// CLOCK_MONOTONIC now, in seconds: the clock `perf record -k CLOCK_MONOTONIC` stamps its samples with.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// What one phase measured: requests per second, and process CPU per request (server and client together), which
/// other load on the machine does not change.
struct Phase {
    var rate: Double
    var cpuMicroseconds: Double
    /// The part of `cpuMicroseconds` spent in the kernel (system calls, fsync, scheduling).
    var systemMicroseconds: Double
    /// Voluntary and involuntary context switches per request: each thread hop a request makes shows up here.
    var switches: (voluntary: Double, involuntary: Double) = (0, 0)
}

extension Phase {
    /// Context switches per request, voluntary + involuntary.
    var switchesText: String { String(format: "%.1f+%.1f switches", switches.voluntary, switches.involuntary) }
    /// CPU per request, with the kernel's part.
    var cpuText: String { "\(Int(cpuMicroseconds)) µs CPU (\(Int(systemMicroseconds)) in the kernel)" }
}

/// One path's slices of a round added up: seconds, CPU and context switches, weighted by requests.
struct Totals {
    var requests = 0
    var seconds = 0.0
    var cpuMicroseconds = 0.0
    var systemMicroseconds = 0.0
    var voluntary = 0.0
    var involuntary = 0.0

    mutating func add(_ phase: Phase, _ count: Int) {
        requests += count
        seconds += Double(count) / phase.rate
        cpuMicroseconds += phase.cpuMicroseconds * Double(count)
        systemMicroseconds += phase.systemMicroseconds * Double(count)
        voluntary += phase.switches.voluntary * Double(count)
        involuntary += phase.switches.involuntary * Double(count)
    }

    var phase: Phase {
        let n = Double(max(requests, 1))
        return Phase(
            rate: Double(requests) / max(seconds, 1e-9), cpuMicroseconds: cpuMicroseconds / n, systemMicroseconds: systemMicroseconds / n,
            switches: (voluntary / n, involuntary / n))
    }
}
