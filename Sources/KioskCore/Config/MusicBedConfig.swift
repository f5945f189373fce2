/// `audio_track`: a music bed, a looping playlist of sound files heard across the video items
/// (README, "A music bed across items"). Nil in `KioskConfig` when the file has none.
public struct MusicBedConfig: Sendable, Equatable {
    /// What the bed does while an item with sound of its own plays.
    public enum WithItemSound: String, Sendable, CaseIterable {
        /// Lowered by `duckDecibels` under the item's sound.
        case duck
        /// Silent while the item's sound plays.
        case replace
        /// At its own level under the item's sound (a duck of 0 dB).
        case mix
    }

    /// `items` (or the short form's value): files, directories and globs of sound files,
    /// played in order and looped.
    public var items: [ItemConfig] = []
    /// `with_item_sound`: duck | replace | mix.
    public var withItemSound = WithItemSound.duck
    /// `duck`: the bed's level under an item's sound, in dB (negative), for `duck`.
    public var duckDecibels = -12.0
    /// `fade`: seconds each change of the bed's level takes (down under an item's sound, back up).
    public var fadeSeconds = 0.3
    /// `volume`: the bed's own level in percent, under the player's volume.
    public var volume = 100

    public init(items: [ItemConfig] = []) { self.items = items }

    /// What the mixer needs of it (the files are expanded beside it).
    public var mix: MusicBedMix {
        let underItem: Double = switch withItemSound {
        case .duck: MusicBedMix.linear(decibels: duckDecibels)
        case .replace: 0
        case .mix: 1
        }
        return MusicBedMix(underItemSound: underItem, fadeSeconds: fadeSeconds, volume: volume)
    }

    /// Equal in what it plays (file positions aside), as reloads compare.
    public var withoutLocations: MusicBedConfig {
        var copy = self
        copy.items = items.map(\.withoutLocation)
        return copy
    }
}

/// The music bed as the engine plays it: the files `audio_track` names, expanded once at
/// start (directories in natural name order, globs, sound file endings only), and its mix.
public struct MusicBedSettings: Sendable, Equatable {
    public var files: [String]
    public var mix: MusicBedMix
    /// What could not be expanded (a missing file, an empty directory): logged once at start.
    public var problems: [ConfigDiagnostic]

    public init(files: [String], mix: MusicBedMix, problems: [ConfigDiagnostic] = []) {
        self.files = files
        self.mix = mix
        self.problems = problems
    }

    public init(_ config: MusicBedConfig, fileSystem: any PlaylistFileSystem = LocalFileSystem()) {
        let expansion = PlaylistExpander(fileSystem: fileSystem, extensions: PlaylistExpander.soundExtensions)
            .expand(config.items)
        files = expansion.entries.map(\.media.description)
        mix = config.mix
        problems = expansion.diagnostics
    }
}
