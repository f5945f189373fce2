import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// One bad config and the one diagnostic it must produce: where, and a piece of the message.
struct ConfigErrorCase: Sendable, CustomStringConvertible {
    let name: String
    let yaml: String
    let line: Int
    let column: Int
    let fragment: String
    /// Files that exist under /srv/kiosk while it is read (a section that checks its paths).
    var files: [String] = []
    var description: String { name }
}

extension ConfigErrorCase {
    /// A section's own case (music bed, layers, ticker): `yaml` after a playable items list,
    /// named by the message it must give.
    init(afterItems yaml: String, line: Int, column: Int, fragment: String) {
        self.init(name: fragment, yaml: items + yaml, line: line, column: column, fragment: fragment)
    }
}

extension Array where Element == ConfigErrorCase {
    /// The cases read with `files` present.
    func reading(_ files: [String]) -> [ConfigErrorCase] {
        map { var withFiles = $0; withFiles.files = files; return withFiles }
    }
}

/// A playable `items` list appended to cases that are about something else.
private let items = "items: [a.mp4]\n"

let configErrorTable: [ConfigErrorCase] = [
    // Unknown keys, at each level, with and without a suggestion.
    ConfigErrorCase(name: "unknown section", yaml: "displya:\n  output: drm\n" + items, line: 1, column: 1,
                    fragment: "unknown key 'displya' in the file; expected one of: display, audio, input, playback, overlay, control, logging, items, playlists, schedule, triggers, usb, mqtt, sync, displays, audio_track, layers, metrics, overrides, alerts, web (did you mean 'display'?)"),
    ConfigErrorCase(name: "typo in playback", yaml: "playback:\n  gravty: fill\n" + items, line: 2, column: 3,
                    fragment: "unknown key 'gravty' in playback; expected one of: loop, gravity, start_paused, rate, image_duration, stall_timeout, resume, settle, region, transition, frame_memory, hwdec, decoder_threads, deinterlace (did you mean 'gravity'?)"),
    ConfigErrorCase(name: "typo in display", yaml: "display:\n  rotaton: 90\n" + items, line: 2, column: 3,
                    fragment: "(did you mean 'rotation'?)"),
    ConfigErrorCase(name: "unknown in audio, nothing close", yaml: "audio:\n  speakers: 2\n" + items, line: 2, column: 3,
                    fragment: "unknown key 'speakers' in audio; expected one of: device, volume, muted"),
    ConfigErrorCase(name: "unknown in a flow map", yaml: "input:\n  gestures: {tap: true, swip: false}\n" + items,
                    line: 2, column: 25, fragment: "unknown key 'swip' in input.gestures; expected one of: tap, swipe, scrub, double_tap (did you mean 'swipe'?)"),
    ConfigErrorCase(name: "unknown key action", yaml: "input:\n  keys:\n    pause: [KEY_P]\n" + items, line: 3, column: 5,
                    fragment: "unknown key 'pause' in input.keys"),
    ConfigErrorCase(name: "typo in an item", yaml: "items:\n  - path: a.mp4\n    volme: 80\n", line: 3, column: 5,
                    fragment: "unknown key 'volme' in item 1; expected one of: path, gravity, volume, muted, start, end, loop, duration, title, sync, transition, recursive, transport, latency, fallback, enabled, text, color, background, size (did you mean 'volume'?)"),
    ConfigErrorCase(name: "recursive on a file", yaml: "items:\n  - path: a.mp4\n    recursive: true\n", line: 3, column: 16,
                    fragment: "'recursive' in item 1 applies to a directory, and 'a.mp4' is not one; expected a directory path (ending in /)"),
    ConfigErrorCase(name: "transport on a file", yaml: "items:\n  - path: a.mp4\n    transport: tcp\n", line: 3, column: 16,
                    fragment: "'transport' in item 1 applies to rtsp:// items; expected it on one, or leave it out"),
    ConfigErrorCase(name: "transport misspelt", yaml: "items:\n  - path: rtsp://cam/1\n    transport: tpc\n", line: 3, column: 16,
                    fragment: "'transport' in item 1"),
    ConfigErrorCase(name: "fallback missing", yaml: "items:\n  - path: udp://239.1.1.1:5000\n    fallback: slate.png\n", line: 3, column: 15,
                    fragment: "fallback image '/srv/kiosk/slate.png' in item 1 does not exist; expected the path of an image (PNG, JPEG)"),
    ConfigErrorCase(name: "latency too long", yaml: "items:\n  - path: srt://cam:9000\n    latency: 30\n", line: 3, column: 14,
                    fragment: "'latency' in item 1 is 30.0 s; expected at most 10 seconds"),
    // Two letters swapped, the commonest typo, is one edit: one line, not a second "no items".
    ConfigErrorCase(name: "items with two letters swapped", yaml: "itmes:\n  - a.mp4\n", line: 1, column: 1,
                    fragment: "unknown key 'itmes' in the file; expected one of: display, audio, input, playback, overlay, control, logging, items, playlists, schedule, triggers, usb, mqtt, sync, displays, audio_track, layers, metrics, overrides, alerts, web (did you mean 'items'?)"),
    ConfigErrorCase(name: "swapped letters in playback", yaml: "playback:\n  gravtiy: fill\n" + items, line: 2, column: 3,
                    fragment: "(did you mean 'gravity'?)"),
    ConfigErrorCase(name: "typo in control", yaml: "control:\n  sockets: none\n" + items, line: 2, column: 3,
                    fragment: "(did you mean 'socket'?)"),
    ConfigErrorCase(name: "typo in overlay", yaml: "overlay:\n  hide_afer: 2\n" + items, line: 2, column: 3,
                    fragment: "(did you mean 'hide_after'?)"),

    // Wrong types.
    ConfigErrorCase(name: "string for a number", yaml: "audio:\n  volume: loud\n" + items, line: 2, column: 11,
                    fragment: "'volume' in audio is the string 'loud'; expected a whole number from 0 to 100"),
    ConfigErrorCase(name: "quoted number is a string", yaml: "playback:\n  rate: \"2\"\n" + items, line: 2, column: 9,
                    fragment: "'rate' in playback is the string '2'; expected a number from 0.25 to 4"),
    ConfigErrorCase(name: "list for a map", yaml: "playback: [loop, none]\n" + items, line: 1, column: 11,
                    fragment: "'playback' is a list; expected a map of loop, gravity"),
    ConfigErrorCase(name: "map for a string", yaml: "display:\n  mode: {w: 1}\n" + items, line: 2, column: 9,
                    fragment: "'mode' in display is a map; expected preferred, WxH or WxH@HZ"),
    ConfigErrorCase(name: "word for a bool", yaml: "audio:\n  muted: maybe\n" + items, line: 2, column: 10,
                    fragment: "'muted' in audio is the string 'maybe'; expected true or false"),
    ConfigErrorCase(name: "string for seconds", yaml: "playback:\n  image_duration: long\n" + items, line: 2, column: 19,
                    fragment: "'image_duration' in playback is the string 'long'; expected seconds > 0"),
    ConfigErrorCase(name: "items is a map", yaml: "items:\n  path: a.mp4\n", line: 2, column: 3,
                    fragment: "'items' is a map; expected a list"),
    ConfigErrorCase(name: "item is a list", yaml: "items:\n  - [a.mp4, b.mp4]\n", line: 2, column: 5,
                    fragment: "item 1 is a list; expected a path or a map with 'path'"),
    ConfigErrorCase(name: "file is a list", yaml: "- a.mp4\n", line: 1, column: 1,
                    fragment: "the file holds a list; expected a map with the sections display, audio"),

    // Out of range and bad values.
    ConfigErrorCase(name: "stall timeout under a second", yaml: "playback:\n  stall_timeout: 0.5\n" + items, line: 2, column: 18,
                    fragment: "'stall_timeout' in playback is 0.5; expected seconds >= 1"),
    ConfigErrorCase(name: "stall timeout a word", yaml: "playback:\n  stall_timeout: never\n" + items, line: 2, column: 18,
                    fragment: "'stall_timeout' in playback is the string 'never'; expected seconds >= 1"),
    ConfigErrorCase(name: "volume 150", yaml: "audio:\n  volume: 150\n" + items, line: 2, column: 11,
                    fragment: "'volume' in audio is 150; expected a whole number from 0 to 100"),
    ConfigErrorCase(name: "item volume 150", yaml: "items:\n  - {path: a.mp4, volume: 150}\n", line: 2, column: 27,
                    fragment: "'volume' in item 1 is 150; expected a whole number from 0 to 100"),
    ConfigErrorCase(name: "rate 8", yaml: "playback:\n  rate: 8\n" + items, line: 2, column: 9,
                    fragment: "'rate' in playback is 8; expected a number from 0.25 to 4"),
    ConfigErrorCase(name: "rate 0.1", yaml: "playback:\n  rate: 0.1\n" + items, line: 2, column: 9,
                    fragment: "'rate' in playback is 0.1; expected a number from 0.25 to 4"),
    ConfigErrorCase(name: "rotation 45", yaml: "display:\n  rotation: 45\n" + items, line: 2, column: 13,
                    fragment: "'rotation' in display is 45; expected one of: 0, 90, 180, 270"),
    ConfigErrorCase(name: "rotation 360", yaml: "display:\n  rotation: 360\n" + items, line: 2, column: 13,
                    fragment: "expected one of: 0, 90, 180, 270"),
    ConfigErrorCase(name: "seek_step 0", yaml: "input:\n  seek_step: 0\n" + items, line: 2, column: 14,
                    fragment: "'seek_step' in input is 0; expected seconds > 0"),
    ConfigErrorCase(name: "hide_after 0", yaml: "overlay:\n  hide_after: 0\n" + items, line: 2, column: 15,
                    fragment: "'hide_after' in overlay is 0; expected seconds > 0"),
    ConfigErrorCase(name: "time_interval negative", yaml: "control:\n  time_interval: -1\n" + items, line: 2, column: 18,
                    fragment: "'time_interval' in control is -1; expected seconds > 0"),
    ConfigErrorCase(name: "start >= end", yaml: "items:\n  - path: a.mp4\n    start: 20\n    end: 5\n", line: 4, column: 10,
                    fragment: "'end' (5) is not after 'start' (20) in item 1; expected end > start"),
    ConfigErrorCase(name: "start == end in m:ss", yaml: "items:\n  - {path: a.mp4, start: 1:30, end: 90}\n", line: 2, column: 37,
                    fragment: "'end' (90) is not after 'start' (1:30) in item 1"),
    ConfigErrorCase(name: "negative start", yaml: "items:\n  - {path: a.mp4, start: -1}\n", line: 2, column: 26,
                    fragment: "'start' in item 1 is -1; expected seconds >= 0"),
    ConfigErrorCase(name: "loop 0", yaml: "items:\n  - path: a.mp4\n    loop: 0\n", line: 3, column: 11,
                    fragment: "'loop' in item 1 is 0; expected a whole number from 1 to 1000000 (plays in a row)"),
    ConfigErrorCase(name: "loop 2.5", yaml: "items:\n  - path: a.mp4\n    loop: 2.5\n", line: 3, column: 11,
                    fragment: "'loop' in item 1 is 2.5; expected a whole number"),
    ConfigErrorCase(name: "duration 0", yaml: "items:\n  - path: a.png\n    duration: 0\n", line: 3, column: 15,
                    fragment: "'duration' in item 1 is 0; expected seconds > 0"),
    ConfigErrorCase(name: "bad mode", yaml: "display:\n  mode: 1920by1080\n" + items, line: 2, column: 9,
                    fragment: "'mode' in display is '1920by1080'; expected preferred, WxH or WxH@HZ"),
    ConfigErrorCase(name: "bad refresh", yaml: "display:\n  mode: 1920x1080@fast\n" + items, line: 2, column: 9,
                    fragment: "'mode' in display is '1920x1080@fast'"),
    ConfigErrorCase(name: "bad headless size", yaml: "display:\n  headless_size: 0x720\n" + items, line: 2, column: 18,
                    fragment: "'headless_size' in display is '0x720'; expected a size WxH like 1280x720"),
    ConfigErrorCase(name: "bad video plane", yaml: "display:\n  video_plane: yes\n" + items, line: 2, column: 16,
                    fragment: "'video_plane' in display is yes; expected one of: auto, off"),
    ConfigErrorCase(name: "card not a path", yaml: "display:\n  card: card0\n" + items, line: 2, column: 9,
                    fragment: "expected auto or a device path like /dev/dri/card0"),
    ConfigErrorCase(name: "bad output", yaml: "display:\n  output: x11\n" + items, line: 2, column: 11,
                    fragment: "'output' in display is the string 'x11'; expected one of: drm, headless"),
    ConfigErrorCase(name: "bad gravity", yaml: "playback:\n  gravity: fil\n" + items, line: 2, column: 12,
                    fragment: "'gravity' in playback is the string 'fil'; expected one of: fit, fill, stretch (did you mean 'fill'?)"),
    ConfigErrorCase(name: "bad item gravity", yaml: "items:\n  - path: a.mp4\n    gravity: zoom\n", line: 3, column: 14,
                    fragment: "'gravity' in item 1 is the string 'zoom'; expected one of: fit, fill, stretch"),
    ConfigErrorCase(name: "bad resume mode", yaml: "playback:\n  resume: yes\n" + items, line: 2, column: 11,
                    fragment: "'resume' in playback is yes; expected one of: off, item, position"),
    ConfigErrorCase(name: "resume near miss", yaml: "playback:\n  resume: postion\n" + items, line: 2, column: 11,
                    fragment: "expected one of: off, item, position (did you mean 'position'?)"),
    ConfigErrorCase(name: "typo in logging", yaml: "logging:\n  proof_of_plays: plays.jsonl\n" + items, line: 2, column: 3,
                    fragment: "unknown key 'proof_of_plays' in logging; expected one of: proof_of_play, proof_of_play_max (did you mean 'proof_of_play'?)"),
    ConfigErrorCase(name: "empty proof_of_play", yaml: "logging:\n  proof_of_play: \"\"\n" + items, line: 2, column: 18,
                    fragment: "'proof_of_play' in logging is the string ''; expected the path of a file for the plays"),
    ConfigErrorCase(name: "proof_of_play_max a word", yaml: "logging:\n  proof_of_play_max: big\n" + items, line: 2, column: 22,
                    fragment: "'proof_of_play_max' in logging is the string 'big'; expected a size of at least 4K (like 10M, 512K, 1G or a number of bytes)"),
    ConfigErrorCase(name: "proof_of_play_max too small", yaml: "logging:\n  proof_of_play_max: 100\n" + items, line: 2, column: 22,
                    fragment: "'proof_of_play_max' in logging is 100; expected a size of at least 4K"),
    ConfigErrorCase(name: "proof_of_play_max unknown unit", yaml: "logging:\n  proof_of_play_max: 10T\n" + items, line: 2, column: 22,
                    fragment: "'proof_of_play_max' in logging is the string '10T'"),
    ConfigErrorCase(name: "logging a list", yaml: "logging: [plays.jsonl]\n" + items, line: 1, column: 10,
                    fragment: "'logging' is a list; expected a map of proof_of_play, proof_of_play_max"),
    ConfigErrorCase(name: "deinterlace a filter's name", yaml: "playback:\n  deinterlace: yadif\n" + items, line: 2, column: 16,
                    fragment: "'deinterlace' in playback"),
    ConfigErrorCase(name: "frame_memory a word", yaml: "playback:\n  frame_memory: lots\n" + items, line: 2, column: 17,
                    fragment: "'frame_memory' in playback is the string 'lots'; expected a size of at least 4M (like 32M, 64M or 1G): the decoded frames an item may queue"),
    ConfigErrorCase(name: "frame_memory too small", yaml: "playback:\n  frame_memory: 1M\n" + items, line: 2, column: 17,
                    fragment: "'frame_memory' in playback is the string '1M'; expected a size of at least 4M"),
    ConfigErrorCase(name: "hwdec typo", yaml: "playback:\n  hwdec: vaapii\n" + items, line: 2, column: 10,
                    fragment: "expected one of: off, auto, vaapi, drm, cuda, v4l2m2m (did you mean 'vaapi'?)"),
    ConfigErrorCase(name: "bad loop mode", yaml: "playback:\n  loop: forever\n" + items, line: 2, column: 9,
                    fragment: "expected one of: none, item, playlist"),
    ConfigErrorCase(name: "empty device list", yaml: "input:\n  devices: []\n" + items, line: 2, column: 12,
                    fragment: "'devices' in input is an empty list; expected auto or at least one device"),
    ConfigErrorCase(name: "bad key name", yaml: "input:\n  keys:\n    mute: [KEY_M, space]\n" + items, line: 3, column: 19,
                    fragment: "'space' in input.keys.mute is not an evdev key name; expected a name like KEY_SPACE"),
    ConfigErrorCase(name: "key bound twice with a default", yaml: "input:\n  keys:\n    next: [KEY_M]\n" + items, line: 3, column: 12,
                    fragment: "KEY_M is bound to both next and mute (a default); expected one action per key (replace the other list, e.g. mute: [])"),
    ConfigErrorCase(name: "key bound twice in the file", yaml: "input:\n  keys:\n    mute: [KEY_X]\n    next: [KEY_X]\n" + items,
                    line: 3, column: 12, fragment: "KEY_X is bound to both mute and next; expected one action per key"),

    // Items.
    ConfigErrorCase(name: "empty items", yaml: "items: []\n", line: 1, column: 8,
                    fragment: "no items: 'items' is an empty list; expected at least one file, directory, glob or URL"),
    ConfigErrorCase(name: "items without value", yaml: "display:\n  output: drm\nitems:\n", line: 3, column: 7,
                    fragment: "no items: 'items' is empty"),
    ConfigErrorCase(name: "no items key", yaml: "playback:\n  loop: none\n", line: 1, column: 1,
                    fragment: "no items: there is no 'items' list"),
    ConfigErrorCase(name: "empty file", yaml: "", line: 1, column: 1, fragment: "no items: the file is empty"),
    ConfigErrorCase(name: "only comments", yaml: "# nothing yet\n", line: 1, column: 1, fragment: "no items: the file is empty"),
    ConfigErrorCase(name: "item map without path", yaml: "items:\n  - gravity: fill\n    volume: 50\n", line: 2, column: 5,
                    fragment: "item 1 has no 'path'; expected path: followed by a file, directory, glob or URL"),
    ConfigErrorCase(name: "empty path", yaml: "items:\n  - path: \"\"\n", line: 2, column: 11,
                    fragment: "'path' in item 1 is the string ''; expected a file, directory, glob or URL"),

    // YAML itself.
    ConfigErrorCase(name: "unclosed bracket", yaml: "playback:\n  loop: [none\nitems: [a.mp4]\n", line: 3, column: 6,
                    fragment: "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at 2:9)"),
    ConfigErrorCase(name: "colon in a plain value", yaml: "overlay:\n  font: a: b\n" + items, line: 2, column: 10,
                    fragment: "YAML syntax error: mapping values are not allowed in this context"),
    ConfigErrorCase(name: "tab as indentation", yaml: "playback:\n\tloop: none\n" + items, line: 2, column: 1,
                    fragment: "tab character in indentation; indent with spaces"),
    ConfigErrorCase(name: "tab after spaces", yaml: "playback:\n  loop: none\n\tgravity: fit\n" + items, line: 3, column: 1,
                    fragment: "tab character in indentation"),
    ConfigErrorCase(name: "duplicate key", yaml: "playback:\n  loop: none\n  loop: item\n" + items, line: 3, column: 3,
                    fragment: "duplicate key 'loop' (first at 2:3); each key may appear only once"),
    ConfigErrorCase(name: "duplicate section", yaml: "items: [a.mp4]\nitems: [b.mp4]\n", line: 2, column: 1,
                    fragment: "duplicate key 'items' (first at 1:1)"),
    ConfigErrorCase(name: "duplicate in a flow map", yaml: "input:\n  gestures: {tap: true, tap: false}\n" + items,
                    line: 2, column: 25, fragment: "duplicate key 'tap' (first at 2:14)"),
    ConfigErrorCase(name: "duplicate quoted key", yaml: "audio:\n  \"volume\": 10\n  volume: 20\n" + items, line: 3, column: 3,
                    fragment: "duplicate key 'volume' (first at 2:3)"),
    ConfigErrorCase(name: "duplicate item option", yaml: "items:\n  - path: a.mp4\n    path: b.mp4\n", line: 3, column: 5,
                    fragment: "duplicate key 'path' (first at 2:5)"),
    // A flow map opened on the line before its keys: the second copy cannot be located safely,
    // so the first is reported and reading stops there, as for a syntax error.
    ConfigErrorCase(name: "duplicate not located", yaml: "input:\n  gestures: {\n    tap: true, tap: false}\n" + items,
                    line: 3, column: 5, fragment: "duplicate key 'tap' in this mapping; each key may appear only once"),
    // Quoted at most 160 characters, as every value in a message: a key or a number is the file's text.
    ConfigErrorCase(name: "a number of 5,000 digits", yaml: "audio:\n  volume: \(String(repeating: "9", count: 5000))\n" + items,
                    line: 2, column: 11, fragment: "'volume' in audio is \(String(repeating: "9", count: 160))...;"),
    ConfigErrorCase(name: "second document", yaml: items + "---\n" + items, line: 2, column: 1,
                    fragment: "a second YAML document starts here; a config file holds exactly one"),
    ConfigErrorCase(name: "undefined alias", yaml: "audio:\n  volume: *loud\n" + items, line: 2, column: 11,
                    fragment: "alias to an undefined anchor"),
]

@Suite("Config errors")
struct ConfigErrorTests {
    // triggers: (and their gpio:), displays:, sync:, audio_track:, layers:, playback.region and transitions have tables of
    // their own (beside their other tests), checked the same way here.
    @Test(arguments: configErrorTable + triggerConfigErrorTable + overrideConfigErrorTable + textItemConfigErrorTable + alertsConfigErrorTable + webConfigErrorTable + gpioTriggerConfigErrorTable + displaysConfigErrorTable + contentSyncConfigErrorTable
          + ConfigSourceURLTests.badValues + MusicBedTests.badValues + LayerTests.badValues + LayerTests.badRegions + TickerTests.badValues
          + TransitionTests.badValues)
    func reportsOneDiagnosticWithPosition(_ testCase: ConfigErrorCase) {
        let diagnostics = parseDiagnostics(testCase.yaml, files: testCase.files)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        let diagnostic = diagnostics.first
        #expect(diagnostic?.file == "kiosk.conf")
        #expect(diagnostic?.line == testCase.line, "\(diagnostics)")
        #expect(diagnostic?.column == testCase.column, "\(diagnostics)")
        #expect(diagnostic?.message.contains(testCase.fragment) == true, "\(diagnostics)")
    }

    /// A duplicated key is quoted as every value is: at most 160 characters (libyaml takes keys
    /// up to 1,024), control characters escaped.
    @Test func aLongDuplicateKeyIsQuotedShort() {
        let key = String(repeating: "k", count: 1000)
        let diagnostics = parseDiagnostics("audio:\n  \(key): 1\n  \(key): 2\n" + items)
        let duplicate = diagnostics.first { $0.message.hasPrefix("duplicate key") }
        #expect(duplicate?.line == 3 && duplicate?.column == 3, "\(diagnostics)")
        #expect(duplicate?.message == "duplicate key '\(key.prefix(160))...' (first at 2:3); each key may appear only once")
        #expect(diagnostics.allSatisfy { $0.message.count < 400 }, "\(diagnostics)")
    }

    @Test func collectsEveryProblemInFileOrder() {
        let yaml = """
            display:
              rotation: 45
            audio:
              volume: 150
            playback:
              loop: none
              loop: item
              rate: 8
            items:
              - path: a.mp4
                start: 20
                end: 5
              - gravity: fill
            """
        let diagnostics = parseDiagnostics(yaml)
        #expect(diagnostics.map { "\($0.line):\($0.column)" } == ["2:13", "4:11", "7:3", "8:9", "12:10", "13:5"])
        #expect(diagnostics.dropFirst(2).first?.message.hasPrefix("duplicate key 'loop'") == true)
    }

    @Test func printsOneDiagnosticPerLine() {
        let error = ConfigError(diagnostics: [
            ConfigDiagnostic(file: "kiosk.conf", line: 12, column: 5, message: "unknown key 'gravty' in playback"),
            ConfigDiagnostic(file: "kiosk.conf", line: 14, column: 9, message: "'rate' in playback is 8"),
        ])
        #expect(error.description == """
            kiosk.conf:12:5: unknown key 'gravty' in playback
            kiosk.conf:14:9: 'rate' in playback is 8
            """)
    }

    @Test func unreadableFileIsOneFileLevelDiagnostic() {
        do {
            _ = try ConfigLoader.load(path: "/nonexistent/kiosk.conf")
            Issue.record("loading a missing file succeeded")
        } catch {
            #expect(error.description == "/nonexistent/kiosk.conf: no such file; expected a readable kiosk.conf")
        }
    }
}

/// The diagnostics of parsing `yaml` as kiosk.conf in /srv/kiosk, on an empty fake disk.
func parseDiagnostics(_ yaml: String, files: [String] = []) -> [ConfigDiagnostic] {
    do {
        _ = try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                                   fileSystem: FakeFileSystem(files: files))
        return []
    } catch {
        return error.diagnostics
    }
}
