import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

@Suite struct CaptureSourceTests {
    @Test func aV4L2ItemNamesItsDevice() {
        #expect(CaptureSource("v4l2:///dev/video0") == CaptureSource(format: "v4l2", device: "/dev/video0"))
        #expect(CaptureSource("V4L2:///dev/v4l/by-id/usb-cam") == CaptureSource(format: "v4l2", device: "/dev/v4l/by-id/usb-cam"))
    }

    @Test func malformedOrOtherSourcesAreNone() {
        for source in ["v4l2://", "v4l2://dev/video0", "v4l2:", "/dev/video0", "http://host/v4l2", "clip.mp4"] {
            #expect(CaptureSource(source) == nil, "\(source)")
        }
        #expect(CaptureSource.isCapture("v4l2://dev/video0"), "written as one: the player says what is wrong")
        #expect(!CaptureSource.isCapture("http://host/a.mp4"))
    }

    @Test func aCaptureDeviceIsNotANetworkSource() {
        #expect(!NetworkURL.isNetwork("v4l2:///dev/video0"))
        #expect(NetworkURL.isNetwork("rtsp://camera/stream"))
    }
}
