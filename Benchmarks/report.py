"""Output of Benchmarks/run: the results table, the machine's facts, the BENCHMARKS.md section."""
import datetime
import json
import os
import platform
import shlex
import subprocess
from pathlib import Path

BEGIN = "<!-- Benchmarks/run --markdown: begin (generated; edits inside are overwritten) -->"
END = "<!-- Benchmarks/run --markdown: end -->"


def table(rows):
    """A Markdown table (readable as plain text too) of medians and ratios."""
    header = ["tool", "wall s", "wall min-max", "CPU s", "peak RSS MB",
              "wall x", "CPU x", "RSS x", "others' load"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    ratio = lambda value: "-" if value is None else f"{value:.2f}"  # noqa: E731
    for r in rows:
        cells = [r["name"], f"{r['wall']:.2f}", f"{r['wall_min']:.2f}-{r['wall_max']:.2f}", f"{r['cpu']:.2f}",
                 f"{r['rss_mb']:.1f}", ratio(r["wall_ratio"]), ratio(r["cpu_ratio"]), ratio(r["rss_kb_ratio"]),
                 f"{r['background']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def kiosk_frames(stdout):
    """The frame count `kiosk bench` printed ("frames: N", or "frames" in its --json object),
    or None. The script reads the text form: --json goes through Foundation's
    JSONSerialization at exit, which alone adds ~4.6 MB to kiosk's peak RSS."""
    for line in stdout.splitlines():
        if line.startswith("frames:"):
            try:
                return int(line.split(":", 1)[1])
            except ValueError:
                return None
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and "frames" in value:
            return int(value["frames"])
    return None


def first_line(argv, pick=0):
    """Line `pick` of a command's output, or 'not installed'."""
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "not installed"
    lines = (result.stdout or result.stderr).splitlines()
    return lines[pick].strip() if len(lines) > pick else "unknown"


def machine():
    """Facts that decide what the numbers mean."""
    model = "unknown"
    memory = "unknown"
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
        kb = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal"))
        memory = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        pass
    repo = Path(__file__).resolve().parent.parent
    commit = first_line(["git", "-C", str(repo), "describe", "--always"])
    # Dirty only when what the binary is built from changed (BENCHMARKS.md itself does not count).
    if first_line(["git", "-C", str(repo), "status", "--porcelain", "--", "Sources", "Package.swift"]) not in ("unknown", "not installed"):
        commit += " with uncommitted changes in Sources/Package.swift"
    return [
        ("CPU", f"{model}, {os.cpu_count()} cores"),
        ("memory", memory),
        ("kernel", f"{platform.system()} {platform.release()} ({platform.machine()})"),
        ("OS", os_name()),
        ("FFmpeg", first_line(["ffmpeg", "-version"]).split(" Copyright")[0]),
        ("GStreamer", first_line(["gst-launch-1.0", "--version"], pick=1)),
        ("mpv", first_line(["mpv", "--version"]).split(" Copyright")[0]),
        ("Swift", first_line(["swift", "--version"])),
        ("kiosk", f"commit {commit}, release build"),
    ]


def os_name():
    try:
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return "unknown"


def write_markdown(path, *, command, clip, seconds, runs, warmup, nice, tools, skipped, table, goals, load_after):
    """Replaces the generated section of BENCHMARKS.md (creating the file if needed), keeping
    everything written by hand around it."""
    date = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    lines = [BEGIN, "", f"Measured {date} with `{command}`.", "", "Machine:", ""]
    lines += [f"- {key}: {value}" for key, value in machine()]
    lines += ["", f"Clip: {seconds} s of 1080p30 H.264 (`testsrc2`, libx264 `-preset medium -crf 23`, yuv420p, "
              f"{clip.stat().st_size * 8 / seconds / 1e6:.1f} Mbit/s), {seconds * 30} frames, "
              f"into a 1280x800 screen. Medians of {runs} runs per tool"
              f"{' after one untimed warm-up pass' if warmup else ''}, "
              f"tools interleaved run by run in a rotating order{f', at nice {nice}' if nice else ''}. Wall time from the parent, CPU time "
              "(user+sys) and peak RSS from `wait4`'s rusage. Ratios are against ffmpeg decode-only. "
              "*others' load*: cores kept busy by other processes during the tool's runs (from /proc/stat, "
              f"median); load average at the end: {' '.join(f'{x:.2f}' for x in load_after)}.", ""]
    lines += [table, "", "Goals:", ""] + [f"- {goal}" for goal in goals] + [""]
    lines += ["Commands (`CLIP` is the generated clip):", "", "```sh",
              f"CLIP={shlex.quote(str(clip))}",
              "ffmpeg -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=%d -c:v libx264 -preset medium "
              "-crf 23 -pix_fmt yuv420p -movflags +faststart \"$CLIP\"" % seconds]
    for tool in tools:
        argv = " ".join('"$CLIP"' if a == str(clip) else shlex.quote(a).replace(str(clip), "$CLIP")
                        for a in tool.argv)
        env = "".join(f"{key}={shlex.quote(value)} " for key, value in tool.env.items())
        lines += [f"# {tool.name}: {tool.note}", env + argv.replace(str(path.parent) + "/", "")]
    lines += ["```", ""]
    lines += [f"- skipped: {line}" for line in skipped]
    lines += [f"- FAILED {tool.name}: {tool.failure}" for tool in tools if tool.failure]
    lines += ["", END]
    section = "\n".join(lines).replace("\n\n\n", "\n\n")
    text = path.read_text() if path.exists() else "# Benchmarks\n\n" + BEGIN + "\n" + END + "\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + section + tail
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    path.write_text(text)


HAND_WRITTEN = "## Where kiosk stands"


def section_markers(key):
    return (f"<!-- Benchmarks/run --markdown: {key} begin (generated; edits inside are overwritten) -->",
            f"<!-- Benchmarks/run --markdown: {key} end -->")


def write_section(path, section, *, command, load_after):
    """Replaces (or appends, before the hand-written part) the generated block of one playback
    line (Benchmarks/playback.py's Section) in BENCHMARKS.md."""
    begin, end = section_markers(section.key)
    date = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    facts = dict(machine())
    lines = [begin, "", f"## {section.title}", "",
             f"Measured {date} with `{command}` on {facts['CPU']} ({facts['kernel']}), {facts['FFmpeg']}, "
             f"{facts['mpv']}, GStreamer {facts['GStreamer'].split()[-1]}, kiosk {facts['kiosk']}; "
             f"load average at the end: {' '.join(f'{x:.2f}' for x in load_after)}.", "", section.intro, "",
             section.text_table(), ""]
    if section.goals:
        lines += ["Goals:", ""] + [f"- {goal}" for goal in section.goals] + [""]
    if section.notes:
        lines += [f"- {note}" for note in section.notes] + [""]
    lines += ["Commands:", "", "```sh"]
    for comment, command_line in section.commands:
        lines += [f"# {comment}", command_line.replace(str(path.parent) + "/", "")]
    lines += ["```", "", end]
    block = "\n".join(lines)
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1]
    elif HAND_WRITTEN in text:
        # A line measured for the first time goes before the hand-written analysis.
        head, tail = text.split(HAND_WRITTEN, 1)
        text = head + block + "\n\n" + HAND_WRITTEN + tail
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)
