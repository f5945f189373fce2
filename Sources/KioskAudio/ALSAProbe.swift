import CALSA
import Glibc

/// The sound hardware and PCM names ALSA knows, for `kiosk probe` and for choosing the
/// `audio-device` line of kiosk.conf.
public struct ALSAProbe: Sendable, Codable, Equatable {
    public struct Card: Sendable, Codable, Equatable {
        public var index: Int
        /// Short id, usable in names: `hw:CARD=<id>,DEV=0`.
        public var id: String
        public var name: String
        public var longName: String
        public var driver: String
        public var playbackDevices: [Device]
    }

    /// A PCM device of a card (`hw:<card>,<device>`).
    public struct Device: Sendable, Codable, Equatable {
        public var index: Int
        public var id: String
        public var name: String
        public var subdevices: Int
        /// The name to open it by, without ALSA's conversions.
        public var pcmName: String
    }

    /// A name from ALSA's configuration hints (`default`, `dmix:...`, `hdmi:...`, `null`...).
    public struct PCMName: Sendable, Codable, Equatable {
        public var name: String
        public var description: String
        /// "Output", "Input", or nil when it does both.
        public var direction: String?
        public var canPlay: Bool { direction != "Input" }
    }

    public var cards: [Card]
    public var pcms: [PCMName]

    /// Reads the current state: cards through their control devices, names through
    /// snd_device_name_hint. Cards that cannot be opened (permissions) are listed by index
    /// with the reason as their name, so the probe says why sound will not work.
    public static func probe() -> ALSAProbe {
        ALSALog.routeIfNeeded()
        return ALSAProbe(cards: probeCards(), pcms: probeNames())
    }

    private static func probeCards() -> [Card] {
        var cards: [Card] = []
        var index: Int32 = -1
        while snd_card_next(&index) == 0, index >= 0 {
            var control: OpaquePointer? = nil
            let result = snd_ctl_open(&control, "hw:\(index)", 0)
            guard result == 0, let control else {
                cards.append(Card(index: Int(index), id: "", name: "cannot open: \(alsaErrorText(result))", longName: "",
                                  driver: "", playbackDevices: []))
                continue
            }
            defer { snd_ctl_close(control) }
            var info: OpaquePointer? = nil
            guard snd_ctl_card_info_malloc(&info) == 0, let info else { continue }
            defer { snd_ctl_card_info_free(info) }
            guard snd_ctl_card_info(control, info) == 0 else { continue }
            cards.append(Card(index: Int(index), id: text(snd_ctl_card_info_get_id(info)),
                              name: text(snd_ctl_card_info_get_name(info)),
                              longName: text(snd_ctl_card_info_get_longname(info)),
                              driver: text(snd_ctl_card_info_get_driver(info)),
                              playbackDevices: playbackDevices(control, card: Int(index))))
        }
        return cards
    }

    private static func playbackDevices(_ control: OpaquePointer, card: Int) -> [Device] {
        var devices: [Device] = []
        var info: OpaquePointer? = nil
        guard snd_pcm_info_malloc(&info) == 0, let info else { return [] }
        defer { snd_pcm_info_free(info) }
        var device: Int32 = -1
        while snd_ctl_pcm_next_device(control, &device) == 0, device >= 0 {
            snd_pcm_info_set_device(info, UInt32(device))
            snd_pcm_info_set_subdevice(info, 0)
            snd_pcm_info_set_stream(info, SND_PCM_STREAM_PLAYBACK)
            // -ENOENT: a capture-only device.
            guard snd_ctl_pcm_info(control, info) == 0 else { continue }
            devices.append(Device(index: Int(device), id: text(snd_pcm_info_get_id(info)),
                                  name: text(snd_pcm_info_get_name(info)),
                                  subdevices: Int(snd_pcm_info_get_subdevices_count(info)),
                                  pcmName: "hw:\(card),\(device)"))
        }
        return devices
    }

    private static func probeNames() -> [PCMName] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>? = nil
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var names: [PCMName] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            guard let name = ownedText(snd_device_name_get_hint(hint, "NAME")) else { continue }
            let description = ownedText(snd_device_name_get_hint(hint, "DESC")) ?? ""
            names.append(PCMName(name: name, description: description.split(separator: "\n").joined(separator: " - "),
                                 direction: ownedText(snd_device_name_get_hint(hint, "IOID"))))
        }
        return names
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    /// snd_device_name_get_hint returns malloc'd strings the caller frees.
    private static func ownedText(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// Lines for `kiosk probe`.
    public var summary: String {
        var lines: [String] = []
        if cards.isEmpty { lines.append("sound cards: none") }
        for card in cards {
            lines.append("card \(card.index): \(card.id) [\(card.name)] \(card.driver)")
            for device in card.playbackDevices {
                lines.append("  \(device.pcmName): \(device.name) (\(device.subdevices) subdevice\(device.subdevices == 1 ? "" : "s"))")
            }
        }
        let playable = pcms.filter(\.canPlay)
        lines.append("playback PCM names:" + (playable.isEmpty ? " none" : ""))
        for pcm in playable { lines.append("  \(pcm.name)" + (pcm.description.isEmpty ? "" : ": \(pcm.description)")) }
        return lines.joined(separator: "\n")
    }
}
