extension PlaylistExpander {
    /// What the bytes say a file is where its name cannot (`pictureByContent`).
    enum ContentKind: Equatable {
        case still
        /// A picture format's animation (a GIF of more pictures than one, an animated WebP):
        /// played as a video, looped for its item's `duration` (`AnimationLoop`).
        case animation
        case video
    }

    /// `media`'s entry for `item`, a still or an animation by its bytes where its name cannot
    /// say (one place for kiosk.conf's items and a playlist file's lines).
    func entry(playing media: MediaReference, of item: ItemConfig, at index: Int) -> PlaylistEntry {
        var entry = PlaylistEntry(media: media, item: item, itemIndex: index)
        if case .file(let path) = media, let kind = pictureByContent(path) {
            entry.isStillImage = kind == .still
            entry.isAnimatedPicture = kind == .animation
        }
        return entry
    }

    /// What the file at `path` is when its name cannot say, from its bytes; nil when the name
    /// says it (a video or still extension) or the bytes cannot be read.
    /// - A GIF is a still when it holds one picture (a poster or a logo, shown for
    ///   `image_duration`), an animation when it holds more (its frames' own delays).
    /// - A WebP is a still unless it is an animation (played as a video, its frames' own times).
    /// - A file with no media extension (`poster`, `asset_1234.dat`, a CMS's download) is a
    ///   still when it begins as a JPEG, PNG, BMP, TIFF, WebP, HEIF or JPEG XL file does; else
    ///   it is a video as before (FFmpeg probes it, and says why when it cannot play it).
    func pictureByContent(_ path: String) -> ContentKind? {
        let name = PathText.lowercasedExtension(path)
        let asked = name == "gif" || name == "webp"
        // Names this expander lists (media, or a music bed's sound files) say what they are.
        if !asked && (Self.mediaExtensions.contains(name) || extensions.contains(name) || Self.otherVideoExtensions.contains(name)) {
            return nil
        }
        let start = fileSystem.bytes(atPath: path, offset: 0, count: StillSignature.leadingByteCount)
        guard let kind = StillSignature.kind(of: start) else { return start.isEmpty || asked ? nil : .video }
        switch kind {
        case .gif: return gifIsStill(path).map { $0 ? .still : .animation }
        case .webp: return StillSignature.isAnimatedWebP(start) ? .animation : .still
        default: return .still   // a .gif or .webp that is a JPEG inside is a still too
        }
    }

    /// Names FFmpeg plays as video that folders do not list, whose first bytes can be a
    /// picture's (raw MJPEG begins as a JPEG, APNG as a PNG): never taken for a still.
    static let otherVideoExtensions: Set<String> = ["mjpeg", "mjpg", "apng", "y4m", "h264", "264", "h265", "265", "hevc", "ivf",
                                                    "nut", "dv", "m1v", "rm", "rmvb", "ogm"]

    /// Read once per version of the file (up to 4 MB, block by block): a folder of GIFs was read
    /// whole again at every expansion (a start, a reload, each change in a watched folder).
    private func gifIsStill(_ path: String) -> Bool? {
        let count = { StillSignature.gifPictureCount { offset, count in fileSystem.bytes(atPath: path, offset: offset, count: count) } }
        guard let fingerprint = fileSystem.fingerprint(atPath: path) else { return count().map { $0 == 1 } }
        return Self.gifPictures.pictureCount(of: path, fingerprint: fingerprint, counting: count).map { $0 == 1 }
    }

    /// The GIFs counted in this process, by path and version.
    static let gifPictures = GIFPictureCache()
}
