import Foundation
import KioskCore

/// What the kernel says of the box for the metrics: thermal zones, and a Raspberry Pi's
/// under-voltage alarm latched once per boot. Roots are parameters so that tests read a fixture
/// tree laid out as sysfs and procfs are.
package struct BoxSensors: Sendable {
    package var sys: String
    package var proc: String
    /// Where the latch is kept (`kiosk run`'s state directory): a file holding the boot id of
    /// the boot in which the alarm was seen.
    package var stateDirectory: String
    /// The folders whose file systems the health reports, each with its use (`state`,
    /// `uploads`); one use per file system (two folders on one disk are one figure).
    package var disks: [(use: String, path: String)]

    package init(sys: String = "/sys", proc: String = "/proc", stateDirectory: String, disks: [(use: String, path: String)] = []) {
        self.sys = sys
        self.proc = proc
        self.stateDirectory = stateDirectory
        self.disks = disks
    }

    /// Each of `disks` that can be read, the first use of a file system standing for it.
    package func diskSpace() -> [HealthSnapshot.Disk] {
        var seen = Set<UInt64>()
        return disks.compactMap { disk in
            var status = stat()
            guard stat(disk.path, &status) == 0, seen.insert(UInt64(status.st_dev)).inserted,
                  let space = DiskSpace.of(disk.path) else { return nil }
            return HealthSnapshot.Disk(use: disk.use, space: space)
        }
    }

    /// `/sys/class/thermal/thermal_zone*/{type,temp}` (millidegrees), in zone order; a zone
    /// that cannot be read (some report EIO until their sensor is up) is left out.
    package func temperatures() -> [HealthSnapshot.Temperature] {
        let directory = sys + "/class/thermal"
        let zones = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix("thermal_zone") }
            .sorted { (Int($0.dropFirst(12)) ?? 0) < (Int($1.dropFirst(12)) ?? 0) }
        return zones.compactMap { zone in
            guard let millidegrees = Self.number(at: "\(directory)/\(zone)/temp") else { return nil }
            let type = Self.text(at: "\(directory)/\(zone)/type") ?? "unknown"
            return HealthSnapshot.Temperature(zone: zone, sensor: type, celsius: Double(millidegrees) / 1000)
        }
    }

    /// The Pi's alarm now and since boot; nil when no hwmon is `rpi_volt`. The driver clears the
    /// firmware's sticky bit when it reports it, so "since boot" is kiosk's own: the first alarm
    /// seen writes the boot id down, and a later boot (another id) starts clear.
    package func underVoltage() -> HealthSnapshot.UnderVoltage? {
        let directory = sys + "/class/hwmon"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        guard let hwmon = names.first(where: { Self.text(at: "\(directory)/\($0)/name") == "rpi_volt" }) else { return nil }
        let now = Self.number(at: "\(directory)/\(hwmon)/in0_lcrit_alarm").map { $0 != 0 } ?? false
        let boot = Self.text(at: proc + "/sys/kernel/random/boot_id") ?? ""
        let latch = stateDirectory + "/under-voltage-boot"
        var sinceBoot = !boot.isEmpty && Self.text(at: latch) == boot
        if now && !sinceBoot {
            sinceBoot = true
            // Best effort: unwritable, the alarm still reads 1 while it lasts.
            try? AtomicFile.write(Data((boot + "\n").utf8), to: latch)
        }
        return HealthSnapshot.UnderVoltage(now: now, sinceBoot: sinceBoot)
    }

    private static func text(at path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path),
              let text = String(data: data, encoding: .utf8) else { return nil }
        let trimmed = text.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func number(at path: String) -> Int? { text(at: path).flatMap { Int($0) } }
}
