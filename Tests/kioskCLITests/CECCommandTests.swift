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
        // ENOTTY's text from a kernel; ENOSYS's under qemu-user (deploy/arm64), which answers an
        // ioctl it does not know so instead of passing it on.
        #expect(["kiosk: /dev/null: CEC_S_MODE failed: Inappropriate ioctl for device\n",
                 "kiosk: /dev/null: CEC_S_MODE failed: Function not implemented\n"].contains(result.stderr), "\(result.stderr)")
    }

    @Test func anUnknownActionIsAUsageError() throws {
        let result = try Kiosk.run("cec", "off")
        #expect(result.status == 2)
        #expect(result.stderr.contains("'status', 'standby' or 'wake'"))
    }
}
