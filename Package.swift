// swift-tools-version:6.0
// kiosk: a lean video player for Linux signage boxes (FFmpeg -> DRM/KMS, ALSA, evdev).
// Module layout (ARCHITECTURE.md): pure logic in KioskBasics, KioskPicture and KioskCore (no C import), one small
// Swift module per C library, the engine on top, the executable last.
import PackageDescription

let package = Package(
    name: "kiosk",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "kiosk", targets: ["kiosk"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // C libraries, found with pkg-config (Debian's -dev packages; deploy/setup installs them).
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev",
                                         "libswscale-dev", "libswresample-dev", "libavfilter-dev"])]),
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        // Text shaping: HarfBuzz shapes a run (joining, marks, ligatures), FriBidi orders runs.
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFriBidi", pkgConfig: "fribidi", providers: [.apt(["libfribidi-dev"])]),
        // libmosquitto's header (libmosquitto-dev) and a dlopen of libmosquitto.so.1 on first use.
        .target(name: "CMosquitto"),
        // libmicrohttpd's header (libmicrohttpd-dev) and a dlopen of libmicrohttpd.so.12 on first use:
        // the metrics listener (and the web page to come).
        .target(name: "CMicroHTTPD"),
        // Content sync's, feeds' and CAP alerts' downloads: libcurl's header (libcurl4-openssl-dev)
        // and a dlopen of libcurl.so.4 on first use; curl_easy_setopt is variadic: typed setters in CCurl.h.
        .target(name: "CCurl"),
        // Signed manifests: Ed25519 and BLAKE2b in minisign's format.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // The kernel's HDMI-CEC API: no library, only <linux/cec.h> and ioctls (static inline in shim.h).
        .systemLibrary(name: "CCEC"),
        // HEIC/HEIF (and AVIF, where libheif has an AV1 decoder) stills, which FFmpeg 5.1 cannot open:
        // libheif's header (libheif-dev) and a dlopen of libheif.so.1 on first use.
        .target(name: "CHeif"),
        // GPIO lines as triggers (buttons, PIR sensors): libgpiod 1.6 (Debian 12) or 2.x (Debian 13),
        // the difference hidden in shim.h's static inline helpers.
        .systemLibrary(name: "CGpiod", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        // What Swift cannot import: function-like macros (AVERROR, AVERROR_EOF) and variadic
        // callbacks (av_log's va_list).
        .target(name: "CKioskShim", dependencies: ["CFFmpeg", "CALSA"]),

        // Pure logic in four targets the compiler keeps acyclic: the basics (time, geometry, sound
        // formats, files, diagnostics); under the core, side by side, the picture (pixel buffers,
        // display requests, layers, overlay) and the policy (playlist, schedule, player state and
        // requests, clock, input rules, the control vocabulary); the core on top (kiosk.conf read
        // into those types, content sync, arrival, operations). KioskCore re-exports the three
        // below it, so `import KioskCore` sees all four.
        .target(name: "KioskBasics", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "KioskPicture", dependencies: ["KioskBasics"]),
        .target(name: "KioskPolicy", dependencies: ["KioskBasics"]),
        .target(name: "KioskCore", dependencies: ["KioskBasics", "KioskPicture", "KioskPolicy", .product(name: "Yams", package: "Yams"), .product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "KioskMedia", dependencies: ["KioskCore", "CFFmpeg", "CKioskShim", "CHeif", .product(name: "SystemPackage", package: "swift-system"),
                                                   .product(name: "Logging", package: "swift-log")]),
        .target(name: "KioskDisplay", dependencies: ["KioskCore", "CDRM", .product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "KioskAudio", dependencies: ["KioskCore", "CALSA", "CKioskShim", .product(name: "SystemPackage", package: "swift-system"),
                                                   .product(name: "Logging", package: "swift-log")]),
        .target(name: "KioskInput", dependencies: ["KioskCore", "CEvdev", .product(name: "SystemPackage", package: "swift-system"),
                                                   .product(name: "Logging", package: "swift-log")]),
        .target(name: "KioskSystemd", dependencies: ["KioskCore", "CSystemd"]),
        .target(name: "KioskText", dependencies: ["KioskCore", "CFreeType", "CHarfBuzz", "CFriBidi"]),
        .target(name: "KioskCEC", dependencies: ["KioskCore", "CCEC", .product(name: "SystemPackage", package: "swift-system"),
                                                 .product(name: "Logging", package: "swift-log")]),
        // Content sync: libcurl transfers, SHA-256 (libavutil's av_sha) and the store on disk.
        .target(name: "KioskFetch", dependencies: ["KioskCore", "CCurl", "CFFmpeg", "CSodium", .product(name: "SystemPackage", package: "swift-system")]),
        // Fleet control: thin typed wrappers of libmosquitto (the bridge is KioskControl's).
        .target(name: "KioskMQTT", dependencies: ["CMosquitto", .product(name: "SystemPackage", package: "swift-system")]),
        // GPIO: thin typed wrappers of libgpiod (chips, one line's edges); the debounce rule is KioskCore's.
        .target(name: "KioskGPIO", dependencies: ["CGpiod", .product(name: "SystemPackage", package: "swift-system")]),
        // HTTP: a thin typed server over libmicrohttpd (routes are KioskService's).
        .target(name: "KioskHTTP", dependencies: ["CMicroHTTPD"]),
        .target(name: "KioskPlayer", dependencies: ["KioskCore", "KioskMedia", "KioskDisplay", "KioskAudio", "KioskText", "KioskFetch",
                                                    .product(name: "Logging", package: "swift-log")]),
        // The control socket (JSON lines, like mpv's IPC) on top of the engine.
        .target(name: "KioskControl", dependencies: ["KioskCore", "KioskPlayer", .product(name: "SystemPackage", package: "swift-system"),
                                                     .product(name: "Logging", package: "swift-log")]),
        // The application layer: the services `kiosk run` and `kiosk play` start around the engine
        // (reloader, watchers, USB sticks, content sync, the fleet connection, schedule driver,
        // resume, proof of play, signals), made once into one `Services` value that every
        // request source is handed.
        .target(name: "KioskService", dependencies: [
            "KioskCore", "KioskMedia", "KioskDisplay", "KioskAudio", "KioskPlayer", "KioskInput", "KioskControl", "KioskSystemd", "KioskText", "KioskCEC", "KioskMQTT", "KioskFetch", "KioskGPIO", "KioskHTTP", "CSodium",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .executableTarget(name: "kiosk", dependencies: [
            "KioskService", "KioskBasics",
            "KioskCore", "KioskMedia", "KioskDisplay", "KioskAudio", "KioskPlayer", "KioskInput", "KioskControl", "KioskSystemd", "KioskText", "KioskCEC", "KioskMQTT", "KioskFetch", "KioskGPIO",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], linkerSettings: [
            // The release binary's own pages (#34, memory; BENCHMARKS.md, "The binary's own pages"):
            // the Swift driver exports every symbol of an executable (-export-dynamic: 25,000 with
            // -enable-testing, a 2 MB table the loader reads and searches), and gold writes 91,000
            // relative relocations as a 2.2 MB table read at every start; lld packs them (DT_RELR,
            // glibc 2.36: bookworm and trixie). The race's peak RSS 5.7 MB lower, --help's 2.9 MB.
            .unsafeFlags(["-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
                         .when(platforms: [.linux], configuration: .release)),
        ]),

        // Test helpers only: clips made with the ffmpeg command, pictures and sound read back.
        .target(name: "KioskTestSupport", dependencies: ["KioskCore", .product(name: "Logging", package: "swift-log")],
                path: "Tests/Support"),

        .testTarget(name: "KioskCoreTests", dependencies: ["KioskCore", "KioskBasics", "KioskPicture", "KioskPolicy"]),
        .testTarget(name: "KioskDisplayTests", dependencies: ["KioskDisplay", "KioskCore", "CDRM"]),
        .testTarget(name: "KioskMediaTests", dependencies: ["KioskMedia", "KioskCore", "KioskTestSupport"]),
        .testTarget(name: "KioskAudioTests", dependencies: ["KioskAudio", "KioskMedia", "KioskCore", "KioskTestSupport",
                                                       .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "KioskInputTests", dependencies: ["KioskInput", "KioskCore", "CEvdev", "KioskTestSupport",
                                                          .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "KioskServiceTests", dependencies: ["KioskService", "KioskGPIO", "KioskHTTP", "KioskControl", "KioskSystemd", "KioskPlayer", "KioskDisplay", "KioskCore", "KioskTestSupport",
                                                            .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "KioskTextTests", dependencies: ["KioskText", "KioskCore"]),
        .testTarget(name: "KioskCECTests", dependencies: ["KioskCEC", "KioskCore", "KioskTestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "KioskPlayerTests", dependencies: ["KioskPlayer", "KioskDisplay", "KioskCore", "KioskTestSupport",
                                                           .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "KioskMQTTTests", dependencies: ["KioskMQTT"]),
        .testTarget(name: "KioskHTTPTests", dependencies: ["KioskHTTP"]),
        .testTarget(name: "KioskFetchTests", dependencies: ["KioskFetch", "KioskCore"]),
        .testTarget(name: "KioskControlTests", dependencies: ["KioskControl", "KioskCore", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "kioskCLITests", dependencies: ["kiosk", "KioskTestSupport"]),
    ]
)
