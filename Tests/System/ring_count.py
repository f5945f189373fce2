#!/usr/bin/env python3
"""Counts, on the tree, what issue 31 asks of the ring around the engine, and prints it:

- commands: for each row of the control command table, the source files that name it (its
  word in quotes or its `ControlCommand` case); the least is what a new command backed by an
  existing service costs (goal <= 3);
- properties: the same for each `ControlProperty` (goal <= 2 for one nothing else reads);
- kiosk.conf keys: the files that spell each key of `input:`, the section whose keys are
  declared once (goal <= 3);
- Sources/kiosk: its file count (goal <= 20);
- no downcast of a video output (`as? DRMDisplay` and the like);
- the README at most 1,000 lines, with no commit hashes;
- no import cycle among the package's targets, and no reference cycle among the folders of the
  pure targets (KioskBasics, KioskPicture, KioskPolicy, KioskCore): the largest set of folders
  that use each other's types has one folder.

Prints one line per measure, `ok` or `over`, and exits 1 if a held goal is missed.
Usage: Tests/System/ring_count.py [--files command|property NAME]"""
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "Sources"


def swift_files(root: Path):
    return sorted(root.rglob("*.swift"))


def text_of(files):
    return {path: path.read_text(encoding="utf-8") for path in files}


ALL = text_of(swift_files(SOURCES))


def files_naming(*patterns):
    """The source files in which any of `patterns` (regular expressions) occurs."""
    compiled = [re.compile(p) for p in patterns]
    return {path for path, text in ALL.items() if any(c.search(text) for c in compiled)}


def enum_cases(file: Path, enum: str):
    """(case name, raw value or None) of `enum` in `file`."""
    text = file.read_text(encoding="utf-8")
    body = text[text.index(f"enum {enum}"):]
    body = body[:body.index("\n}\n")]
    return re.findall(r'^\s+case (\w+)(?: = "([^"]+)")?', body, re.M)


def commands():
    table = (SOURCES / "KioskPolicy/Control/ControlCommandTable.swift").read_text(encoding="utf-8")
    rows = re.findall(r'ControlCommandSpec\("([a-z_]+)"', table)
    cases = {name for name, _ in enum_cases(SOURCES / "KioskPolicy/Control/ControlCommand.swift", "ControlCommand")}
    counts = {}
    for word in rows:
        camel = re.sub(r"_(\w)", lambda m: m.group(1).upper(), word)
        patterns = [f'"{word}"']
        if camel in cases:   # a command of its own kind: its case declared, parsed, answered
            patterns += [rf"case {camel}\b", rf"\.{camel}\b"]
        counts[word] = len(files_naming(*patterns))
    return counts


def properties():
    counts = {}
    for case, raw in enum_cases(SOURCES / "KioskPolicy/Control/ControlCommand.swift", "ControlProperty"):
        # Declared, answered (`case .time:`), read by name (`value(of: .time)`), or spelled.
        counts[raw or case] = len(files_naming(rf"case \.?{case}\b", rf"of: \.{case}\b", f'"{raw or case}"'))
    return counts


def input_keys():
    counts = {}
    for key in ("seek_step", "grab", "devices", "gestures", "keys"):
        counts[key] = len(files_naming(f'"{key}"'))
    return counts


def downcasts():
    outputs = "DRMDisplay|HeadlessDisplay|MultiScreenOutput|MonitoredOutput"
    return sorted(f"{p.relative_to(REPO)}:{n}" for p, t in ALL.items()
                  for n, line in enumerate(t.splitlines(), 1) if re.search(rf"\bas[?!]\s*({outputs})\b", line))


def target_cycles():
    targets = {d.name for d in SOURCES.iterdir() if d.is_dir()}
    graph = {}
    for target in targets:
        imports = set()
        for path in swift_files(SOURCES / target):
            imports |= set(re.findall(r"^(?:@testable )?import (\w+)", ALL[path], re.M))
        graph[target] = (imports & targets) - {target}
    return [c for c in strongly_connected(graph) if len(c) > 1]


PURE_TARGETS = ("KioskBasics", "KioskPicture", "KioskPolicy", "KioskCore")


def core_folder_cycle():
    """The largest set of folders of the pure targets (KioskBasics, KioskPicture, KioskCore) that
    reach each other through the types they use; a folder is named `Target/Folder`."""
    folders = sorted(f"{target}/{d.name}" for target in PURE_TARGETS
                     for d in (SOURCES / target).iterdir() if d.is_dir())
    declared = {}
    for folder in folders:
        for path in swift_files(SOURCES / folder):
            for name in re.findall(r"^(?:public |package |private |fileprivate |final |indirect )*"
                                   r"(?:class|struct|enum|protocol|typealias|actor) (\w+)", ALL[path], re.M):
                declared.setdefault(name, folder)
    graph = {folder: set() for folder in folders}
    for folder in folders:
        words = set()
        for path in swift_files(SOURCES / folder):
            code = re.sub(r"//.*", "", ALL[path])   # a type named in a comment is not a use
            words |= set(re.findall(r"\b[A-Z]\w+\b", code))
        graph[folder] = {declared[w] for w in words if w in declared and declared[w] != folder}
    return max(strongly_connected(graph), key=len, default=[])


def strongly_connected(graph):
    """Tarjan's strongly connected components."""
    index, low, stack, on_stack, result, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for successor in graph.get(node, ()):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            result.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return result


def show(kind, name):
    """The files behind one count (`ring_count.py --files command sync_now`)."""
    if kind == "command":
        camel = re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)
        cases = {case for case, _ in enum_cases(SOURCES / "KioskPolicy/Control/ControlCommand.swift", "ControlCommand")}
        extra = [rf"case {camel}\b", rf"\.{camel}\b"] if camel in cases else []
        files = files_naming(f'"{name}"', *extra)
    else:
        case = re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)
        files = files_naming(rf"case \.?{case}\b", rf"of: \.{case}\b", f'"{name}"')
    for path in sorted(files):
        print(path.relative_to(REPO))


def main():
    missed = []

    def line(name, value, goal=None, held=True):
        ok = goal is None or goal(value)
        mark = "ok" if ok else ("over" if held else "over (not held)")
        print(f"{mark:16} {name}: {value}")
        if held and not ok:
            missed.append(name)

    command_counts = commands()
    line("files naming the least-named command", min(command_counts.values()), lambda v: v <= 3)
    line("files naming each command", dict(sorted(command_counts.items(), key=lambda i: -i[1])))
    property_counts = properties()
    line("files naming the least-named property", min(property_counts.values()), lambda v: v <= 2)
    line("files naming each property", dict(sorted(property_counts.items(), key=lambda i: -i[1])))
    key_counts = input_keys()
    line("files spelling the least-spelled input key", min(key_counts.values()), lambda v: v <= 3)
    line("files spelling input keys", key_counts)
    line("Sources/kiosk files", len(list((SOURCES / "kiosk").glob("*.swift"))), lambda v: v <= 20)
    line("downcasts of an output", downcasts(), lambda v: not v)
    line("import cycles among targets", target_cycles(), lambda v: not v)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    line("README lines", len(readme.splitlines()), lambda v: v <= 1000)
    # A hash is 7-40 hex digits with both a letter and a digit (a plain number is not one).
    hashes = [h for h in re.findall(r"\b[0-9a-f]{7,40}\b", readme) if re.search(r"[a-f]", h) and re.search(r"[0-9]", h)]
    line("commit hashes in the README", hashes, lambda v: not v)
    cycle = core_folder_cycle()
    line("folders of the pure targets in one reference cycle", len(cycle), lambda v: v <= 1)
    print(f"{'':16} those folders: {', '.join(cycle)}")
    return 1 if missed else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--files":
        show(sys.argv[2], sys.argv[3])
        sys.exit(0)
    sys.exit(main())
