import Glibc
import KioskCore
import SystemPackage

extension AtomicFile.Failure {
    /// A failed step of swift-system's calls, with the errno it threw (EIO when it threw none).
    init(step: String, path: String, _ error: any Error) {
        self.init(step: step, path: path, code: (error as? Errno)?.rawValue ?? EIO)
    }
}
