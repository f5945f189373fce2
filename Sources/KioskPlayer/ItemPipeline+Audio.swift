import Foundation
import KioskAudio
import KioskCore
import KioskMedia

/// The item's sound: a third thread decodes the audio packets the demuxer sets aside, converts
/// them to the device's format and tempo, and queues them for the engine's audio feeder.
extension ItemPipeline {
    /// Starts the audio thread when the item has sound kiosk can play; a damaged or
    /// unsupported audio stream costs the item its sound, not its picture.
    func startAudio(asset: Asset, demuxer: Demuxer) throws {
        guard let index = demuxer.audioStream, let format = plan.audioFormat else {
            audio.close()
            return
        }
        let decoder: AudioDecoder
        let converter: AudioConverter
        do {
            decoder = try AudioDecoder(asset: asset, streamIndex: index)
            converter = try AudioConverter(output: format, rate: plan.rate, itemTag: plan.tag)
        } catch {
            logger.warning("\(plan.source): playing without sound: \(error)")
            audio.close()
            audioPackets.close()
            return
        }
        lock.withLock { hasAudioStream = true }
        WorkerThread.start(name: "kiosk-audio-decode", finishesBeforeExit: true, handingOver: (decoder, converter)) { [self] in
            runAudioDecode($0.0, $0.1)
        }
    }

    private func runAudioDecode(_ decoder: AudioDecoder, _ converter: AudioConverter) {
        var skipBefore = plan.start
        var outputGeneration = currentGeneration
        while let message = audioPackets.pop() {
            let (wanted, compensation) = lock.withLock { (requestedRate, requestedCompensation) }
            converter.setCompensation(ppm: compensation)
            if wanted != converter.rate, wanted.isKnownAndPositive {
                // What the old tempo still held comes out first, stamped at the old rate.
                if let tail = try? converter.setRate(wanted), !audio.push(.chunk(tail, generation: outputGeneration)) { return }
            }
            switch message {
            case .seek(let target, let seekGeneration):
                decoder.flush()
                try? converter.reset()
                skipBefore = target
                outputGeneration = seekGeneration
            case .packet(let packet):
                if !decoder.send(packet) {
                    guard drainAudio(decoder, converter, skipBefore: skipBefore, generation: outputGeneration) else { return }
                    _ = decoder.send(packet)
                }
                guard drainAudio(decoder, converter, skipBefore: skipBefore, generation: outputGeneration) else { return }
            case .end:
                _ = decoder.send(nil as Packet?)
                guard drainAudio(decoder, converter, skipBefore: skipBefore, generation: outputGeneration) else { return }
                if let tail = try? converter.finish(), !audio.push(.chunk(tail, generation: outputGeneration)) { return }
                guard audio.push(.end(generation: outputGeneration)) else { return }
                decoder.flush()
            case .pictureHeld:
                break   // the video's (never queued here)
            }
        }
    }

    /// Converts every frame the decoder has ready and queues it; false once closed.
    private func drainAudio(_ decoder: AudioDecoder, _ converter: AudioConverter, skipBefore: MediaTime, generation: Int) -> Bool {
        while case .frame(let frame) = decoder.receive() {
            if let end = plan.end, frame.pts >= end { continue }
            guard frame.trim(before: skipBefore) else { continue }
            do {
                if let chunk = try converter.convert(frame), !audio.push(.chunk(chunk, generation: generation)) { return false }
            } catch {
                logger.warning("\(plan.source): audio conversion failed: \(error)")
            }
        }
        return true
    }
}
