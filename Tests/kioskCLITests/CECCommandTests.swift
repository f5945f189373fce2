import Testing
import KioskTestSupport

/// `kiosk cec` where there is no CEC (the host): the documented exit codes and one line naming
/// the device and the reason. The exchange with a TV is tested in the VM bed (test_cec.py).
@Suite struct CECCommandTests {
    @Test func aMissingDeviceExitsOneNamingIt() throws {
        for action in ["status", "standby", "wake"] {
            let result = try Kiosk.run("cec", "--device", "/nonexistent/cec0", action)
            #expect(result.status == 1, "\(action)")
            #expect(result.stderr == "kiosk: /nonexistent/cec0: cannot open: No such file or directory\n", "\(action)")
        }
    }

    @Test func aDeviceThatIsNotCECSaysWhichCallFailed() throws {
        let result = try Kiosk.run("cec", "--device", "/dev/null", "wake")
        #expect(result.status == 1)
        #expect(result.stderr == "kiosk: /dev/null: CEC_S_MODE failed: Inappropriate ioctl for device\n")
    }

    @Test func anUnknownActionIsAUsageError() throws {
        let result = try Kiosk.run("cec", "off")
        #expect(result.status == 2)
        #expect(result.stderr.contains("'status', 'standby' or 'wake'"))
    }
}
