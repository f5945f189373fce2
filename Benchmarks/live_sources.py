#!/usr/bin/env python3
"""Issue 35's live-source benchmark: how soon kiosk shows a live stream again after its sender
comes back, over many outages of random length, in one kiosk process that must survive them all.

For each kind (an MPEG-TS sender over UDP; the same from an SRT listener; an RTSP camera,
gst-rtsp-server, over TCP and over UDP (`transport:`); a live HLS packager, 1 s segments,
restarted from sequence 0 on an emptied folder behind a web server that stays up): kiosk
playing the URL on a headless 320x240 display (`kiosk run` with a kiosk.conf for RTSP's
transport, `kiosk play URL` for the others); then N times: wait for frames, SIGKILL the sender, wait 0.5-4 s
(seeded), start it again and time the first flip after that (the stats file's CLOCK_MONOTONIC
`t` against the restart's). HLS's gap counts from the packager's first playlist (its first
segment is a second of media: the issue's "after its first new segment").

    Benchmarks/live_sources.py [--cycles 100] [--seed 35] [--kiosk .build/release/kiosk] [--logs DIR]

With `--logs DIR`, kiosk's log of each kind (at debug level) is kept there (KIND.log), beside KIND-cycles.txt: a
line per outage (its wall-clock time, how long the sender was away, the gap), to read what kiosk
did in the slowest ones.

Prints p50, p90, p99 and max per kind, and whether kiosk was alive after every cycle (a crash
or a watchdog kill would end it). No peer is run: ffmpeg, mpv and GStreamer keep a UDP socket
bound through a sender restart and have no reopen policy to compare (see BENCHMARKS.md).
Python 3 standard library only; ffmpeg makes the streams."""
import argparse
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "System"))
from control_client import wait_until as poll_until  # noqa: E402
from test_live_sources import (SERVER, flips_after, free_tcp_port, free_udp_port, hls_packager, rtsp_camera,  # noqa: E402
                               srt_listener, stop, udp_sender)

KINDS = ("udp", "srt", "rtsp-tcp", "rtsp-udp", "hls")


def wait(check, timeout: float) -> bool:
    return bool(poll_until(check, timeout=timeout, interval=0.02))


def run_kind(kiosk: Path, url: str, start, cycles: int, rng: random.Random, work: Path, logs: tuple[Path, Path] | None,
             transport: str | None = None) -> dict:
    stats = work / "stats.jsonl"
    source = start()
    log = open(logs[0], "w") if logs else subprocess.DEVNULL
    cycle_lines = open(logs[1], "w") if logs else None
    if transport:
        config = work / "kiosk.conf"
        config.write_text("display: {output: headless, headless_size: 320x240}\naudio: {device: none}\n"
                          f"input: {{enabled: false}}\nitems:\n  - {{path: '{url}', transport: {transport}}}\n")
        command = [str(kiosk), "run", "--config", str(config)]
    else:
        command = [str(kiosk), "play", url, "--display", "headless:320x240", "--no-input", "--audio", "none"]
    player = subprocess.Popen(command + ["--stats-file", str(stats)] + (["--log-level", "debug"] if logs else []),
                              stderr=log, stdin=subprocess.DEVNULL)
    gaps, alive = [], True
    try:
        if not wait(lambda: len(flips_after(stats, 0)) >= 25, 120):
            raise SystemExit(f"{url}: no frames at the start")
        for _ in range(cycles):
            stop(source)
            killed = time.strftime("%H:%M:%S")
            away = rng.uniform(0.5, 4.0)
            time.sleep(away)
            source = start()
            back = time.monotonic()
            if not wait(lambda: flips_after(stats, back), 60):
                gaps.append(float("inf"))
            else:
                gaps.append(flips_after(stats, back)[0]["t"] - back)
            if cycle_lines:
                print(f"{len(gaps)}: killed {killed}, away {away:.2f} s, back after {gaps[-1]:.2f} s", file=cycle_lines, flush=True)
            # Frames flowing again (a second of them) before the next kill.
            wait(lambda: len(flips_after(stats, back)) >= 25, 60)
            alive = alive and player.poll() is None
    finally:
        stop(source)
        player.send_signal(signal.SIGTERM)
        try:
            player.wait(timeout=30)
        except subprocess.TimeoutExpired:
            player.kill()
        if logs:
            log.close()
            cycle_lines.close()
    return {"gaps": gaps, "alive": alive, "status": player.returncode}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"which kinds to run, comma-separated ({', '.join(KINDS)})")
    parser.add_argument("--kiosk", type=Path, default=REPO / ".build" / "release" / "kiosk")
    parser.add_argument("--logs", type=Path, help="a folder to keep kiosk's log and a line per outage in")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)

    def logs(kind: str) -> tuple[Path, Path] | None:
        return (args.logs / f"{kind}.log", args.logs / f"{kind}-cycles.txt") if args.logs else None
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        kinds = set(args.kinds.split(","))
        results = {}
        port = free_udp_port()
        (work / "udp").mkdir()
        if "udp" in kinds:
            results["udp"] = run_kind(args.kiosk, f"udp://127.0.0.1:{port}", lambda: udp_sender(port), args.cycles, rng, work / "udp", logs("udp"))
        if "srt" in kinds:
            (work / "srt").mkdir()
            srt_port = free_udp_port()
            results["srt"] = run_kind(args.kiosk, f"srt://127.0.0.1:{srt_port}", lambda: srt_listener(srt_port), args.cycles, rng,
                                      work / "srt", logs("srt"))
        for transport in ("tcp", "udp"):
            if f"rtsp-{transport}" not in kinds:
                continue
            (work / f"rtsp-{transport}").mkdir()
            rtsp_port = free_tcp_port()
            results[f"rtsp-{transport}"] = run_kind(args.kiosk, f"rtsp://127.0.0.1:{rtsp_port}/live", lambda: rtsp_camera(rtsp_port),
                                                    args.cycles, rng, work / f"rtsp-{transport}", logs(f"rtsp-{transport}"), transport)
        if "hls" not in kinds:
            return report(results)
        hls = work / "hls"
        hls.mkdir()
        (work / "hls-run").mkdir()
        server = subprocess.Popen([sys.executable, str(SERVER), str(hls), "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            url = f"http://127.0.0.1:{int(server.stdout.readline())}/live.m3u8"

            def start_packager():
                for old in hls.iterdir():
                    old.unlink()
                packager = hls_packager(hls)
                wait(lambda: (hls / "live.m3u8").exists(), 60)
                return packager
            results["hls"] = run_kind(args.kiosk, url, start_packager, args.cycles, rng, work / "hls-run", logs("hls"))
        finally:
            server.kill()
    report(results)


def report(results: dict) -> None:
    for kind, result in results.items():
        gaps = result["gaps"]
        print(f"{kind}: {len(gaps)} outages; back after p50 {statistics.median(gaps):.2f} s, p90 {percentile(gaps, 0.9):.2f} s, "
              f"p99 {percentile(gaps, 0.99):.2f} s, max {max(gaps):.2f} s; kiosk alive after each: {result['alive']}, "
              f"exit status {result['status']}")


if __name__ == "__main__":
    main()
