import KioskAudio
import KioskCore
import KioskMedia

/// How one playlist entry is played.
struct ItemPlan: Sendable {
    var source: String
    /// Trim, from the file's start: play [start, end).
    var start: MediaTime = .zero
    var end: MediaTime?
    /// A still image (one frame) is shown this long.
    var stillDuration: MediaTime?
    /// The screen a large JPEG still (or cover picture) is decoded for, at a `lowres` size
    /// still covering it; videos ignore it.
    var stillScreen: PixelSize?
    /// The screens a video's frames are drawn on: a frame larger than they need is scaled
    /// down on the decode thread (`DecodeShrink`); empty: queued as decoded.
    var videoScreens: [PixelSize] = []
    var decoderThreads = DecoderThreads.auto
    /// Bytes of decoded frames queued ahead of the presenter (`playback.frame_memory`).
    var frameMemory = PlaybackConfig.defaultFrameMemory
    /// `playback.hwdec`: the hardware decoders to try before software.
    var hwdec = HardwareDecoding.off
    /// `playback.deinterlace`: which frames are woven whole on the decode thread.
    var deinterlace = Deinterlacing.auto
    /// A device decoder's frames also handed on where they are (DRM PRIME) for the video
    /// plane's zero-copy path: hwdec on and the video plane not switched off.
    var primeFrames = false
    /// The engine's display's wishes for a device's frames (zero copy), which the decoder and
    /// the simulated PRIME decoder follow.
    var primeHandOn: PrimeHandOn?
    /// `kiosk play --simulate-prime-decoder`: video frames also handed on in dma-buf memory.
    var simulatedPrimeDecoder = false
    /// The sound device's format, nil to ignore the item's sound (no device, or a still).
    var audioFormat: AudioFormat?
    var rate = Rational.one
    /// Stamped on the item's sound so the clock knows whose samples it hears.
    var tag = 0
    /// A URL's `transport` and `latency`.
    var streamOptions = StreamOptions()
    /// `duration` of a network item: how long it plays when it turns out live.
    var liveDuration: MediaTime?
    /// An animated picture given a `duration`: its passes until then (`end` is that duration).
    var animationLoop: AnimationLoop?
    /// A card kiosk draws (`text:` of an override) instead of a file, with the layers' font.
    var card: TextCard?
    var cardScreen: PixelSize?
    var font = OverlayConfig.Font.auto
    /// A video above 1080p creates its decoder only once this is released: the playing
    /// item's large decoder is gone (`DecoderHandOff`, prepared for a cut).
    var decoderAfter: DecoderHandOff?
}
