#!/usr/bin/env python3
"""Hostile inputs for the `tilescan` command: what a careless or malicious caller can hand it.

Usage: hostile_inputs.py TILESCAN WORK_DIR   (ctest runs it as `hostile`; it takes seconds)

Every case runs the built binary in a fresh folder under an address-space limit and a time limit,
and checks the contract of apps/main.cpp: the exit status; for bad input exactly one line on stderr,
"tilescan: error: ...", naming what it expects; and no file left behind (a refused run writes
nothing, an interrupted one leaves no temporary). Endless inputs (/dev/zero, a pipe of `yes`)
must be refused within the limits, which is what bounds the reader's memory. Last, what is drawn
on a terminal (a pseudo-terminal as stderr): the progress bar, and the fraction done with the
running clock.
"""
import os
import pty
import re
import resource
import signal
import subprocess
import sys
import time

# Address space of each run: a reader that keeps an endless stream hits it. Cases that render use
# the ref backend (one thread), so the limit does not depend on the machine's core count.
MEMORY_LIMIT = 1 << 30
TIME_LIMIT = 20  # seconds a case may take; a refusal takes a fraction of one
CIRCLE = "0.5 0.5 0 0.25 1 0 0 0.5\n"

tilescan = os.path.abspath(sys.argv[1])
work = os.path.abspath(sys.argv[2])
failures = []
case_count = 0


def limit_memory(limit):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def listing(folder):
    return sorted(os.listdir(folder))


def fresh_folder(name):
    folder = os.path.join(work, name)
    subprocess.run(["rm", "-rf", folder], check=True)
    os.makedirs(folder)
    return folder


def check(name, condition, detail):
    if not condition:
        failures.append(f"{name}: {detail}")


def run_case(name, arguments, expected, status=2, stdin=None, setup=None, stdout=subprocess.DEVNULL,
             memory=MEMORY_LIMIT, keeps=()):
    """Runs `tilescan ARGUMENTS` in a fresh folder; `setup(folder)` makes its inputs first. `expected`:
    text the single stderr line must hold (None for a success, which may print a summary). `keeps`:
    files the run may add. `stdin`: bytes, a file name in the folder, or a command whose output is piped."""
    global case_count
    case_count += 1
    folder = fresh_folder(name)
    if setup:
        setup(folder)
    before = listing(folder)
    feeder = None
    if isinstance(stdin, list):
        feeder = subprocess.Popen(stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=folder)
        source = feeder.stdout
    elif isinstance(stdin, str):
        source = open(os.path.join(folder, stdin), "rb")
    else:
        source = subprocess.DEVNULL
    start = time.monotonic()
    try:
        result = subprocess.run([tilescan] + arguments, cwd=folder, stdin=source, stdout=stdout,
                                stderr=subprocess.PIPE, timeout=TIME_LIMIT, preexec_fn=limit_memory(memory))
    except subprocess.TimeoutExpired:
        failures.append(f"{name}: still running after {TIME_LIMIT} s")
        return
    finally:
        if feeder:
            feeder.kill()
            feeder.wait()
        if hasattr(source, "close"):
            source.close()
    seconds = time.monotonic() - start
    stderr = result.stderr.decode(errors="replace")
    check(name, result.returncode == status, f"exit {result.returncode}, expected {status}; stderr: {stderr!r}")
    if expected is not None:
        check(name, stderr.count("\n") == 1 and stderr.endswith("\n"), f"stderr is not one line: {stderr!r}")
        check(name, stderr.startswith("tilescan: error: "), f"stderr: {stderr!r}")
        check(name, expected in stderr, f"stderr {stderr!r} lacks {expected!r}")
    added = set(listing(folder)) - set(before) - set(keeps)
    check(name, not added, f"left behind: {sorted(added)}")
    print(f"{'ok' if not any(f.startswith(name + ':') for f in failures) else 'FAILED'}  {name}  ({seconds:.2f} s)")


def write(folder, name, data):
    with open(os.path.join(folder, name), "wb") as file:
        file.write(data.encode() if isinstance(data, str) else data)


def text_scene(name, data):
    return lambda folder: write(folder, name, data)


# ---------------------------------------------------------------------------------------------
# Text scenes, endless or huge: refused on the first line, within the memory limit.

run_case("dev-zero", ["render", "/dev/zero", "-o", "x.png", "--size", "32", "--backend", "ref"],
         "/dev/zero:1: not a scene file")
run_case("dev-urandom", ["render", "/dev/urandom", "-o", "x.png", "--size", "32"], "/dev/urandom:")
run_case("pipe-of-yes", ["render", "-", "-o", "x.png", "--size", "32"], "<stdin>:1: not a scene file",
         stdin=["yes"])
run_case("pipe-of-circles", ["render", "-", "-o", "x.png", "--size", "32"], "<stdin>:4: more circle lines than count 1",
         stdin=["sh", "-c", "printf 'circlescene 1\\ncount 1\\n'; yes '" + CIRCLE.strip() + "'"])
run_case("endless-first-line", ["render", "-", "-o", "x.png"], "<stdin>:1: line longer than 4096 bytes",
         stdin=["sh", "-c", "printf 'circlescene 1 '; yes 1 | tr -d '\\n'"])
# A pipe that promises four billion circles and keeps sending them: memory follows what arrives,
# so it runs into the (smaller) limit and says so, naming the input.
run_case("pipe-promising-billions", ["render", "-", "-o", "x.png", "--backend", "ref"], "<stdin>:",
         stdin=["sh", "-c", "printf 'circlescene 1\\ncount 4294967295\\n'; yes '" + CIRCLE.strip() + "'"],
         memory=128 << 20)


def sparse_zeros(folder):
    with open(os.path.join(folder, "huge.scene"), "wb") as file:
        file.truncate(5 << 30)


run_case("sparse-5GB", ["render", "huge.scene", "-o", "x.png"], "huge.scene:1: not a scene file", setup=sparse_zeros)
run_case("nul-in-number", ["render", "a.scene", "-o", "x.png"], "a.scene:3: '0.5\\x00",
         setup=text_scene("a.scene", "circlescene 1\ncount 1\n0.5\0 0.5 0 0.25 1 0 0 0.5\n"))
run_case("cr-only", ["render", "a.scene", "-o", "x.png"], "CR-only line endings",
         setup=text_scene("a.scene", "circlescene 1\rcount 1\r" + CIRCLE.replace("\n", "\r")))
run_case("count-short", ["render", "a.scene", "-o", "x.png"], "a.scene:3: the file ends after 1 circle line",
         setup=text_scene("a.scene", "circlescene 1\ncount 2\n" + CIRCLE))
run_case("count-2^64", ["render", "a.scene", "-o", "x.png"], "a.scene:2: count 18446744073709551616 cannot fit",
         setup=text_scene("a.scene", "circlescene 1\ncount 18446744073709551616\n" + CIRCLE))
run_case("bom-and-crlf", ["render", "a.scene", "-q", "-o", "x.png", "--size", "16", "--backend", "ref"], None, status=0,
         setup=text_scene("a.scene", "\ufeffcirclescene 1\r\ncount 1\r\n" + CIRCLE.replace("\n", "\r\n")),
         keeps=["x.png"])

# ---------------------------------------------------------------------------------------------
# Binary scenes

MAGIC = b"TSCENE\0\xff"


def binary_header(count):
    return MAGIC + (1).to_bytes(4, "little") + bytes(28) + count.to_bytes(8, "little")


run_case("tsb-truncated", ["render", "a.tsb", "-o", "x.png"], "truncated binary scene",
         setup=lambda folder: write(folder, "a.tsb", binary_header(3) + bytes(40)))
run_case("tsb-count-2^64-1", ["render", "a.tsb", "-o", "x.png"], "a.tsb: truncated binary scene",
         setup=lambda folder: write(folder, "a.tsb", binary_header(2**64 - 1)))


def sparse_binary_scene(folder):
    count = 100_000_000  # 3.2 GB of valid (all-zero) circles that take no disk, beyond the memory limit
    with open(os.path.join(folder, "big.tsb"), "wb") as file:
        file.write(binary_header(count))
        file.truncate(48 + 32 * count)


run_case("tsb-beyond-memory", ["render", "big.tsb", "-o", "x.png"], "big.tsb: out of memory for its 100000000 circles",
         setup=sparse_binary_scene)
run_case("tsb-on-a-pipe", ["render", "-", "-o", "x.png"], "must be a regular file",
         stdin=["sh", "-c", "printf 'TSCENE\\000\\377'; head -c 40 /dev/zero"])

# ---------------------------------------------------------------------------------------------
# Images for diff


def an_image(folder):
    subprocess.run([tilescan, "render", "rgb", "--size", "8", "-q", "-o", os.path.join(folder, "a.png")], check=True)


def a_truncated_image(folder):
    an_image(folder)
    with open(os.path.join(folder, "a.png"), "rb") as file:
        write(folder, "b.png", file.read()[:40])


run_case("diff-dev-zero", ["diff", "a.png", "zero.png"], "zero.png",
         setup=lambda folder: (an_image(folder), os.symlink("/dev/zero", os.path.join(folder, "zero.png"))))
run_case("diff-truncated-png", ["diff", "a.png", "b.png"], "b.png",
         setup=a_truncated_image)
run_case("diff-ppm-huge-header", ["diff", "a.ppm", "a.ppm"], "a.ppm",
         setup=lambda folder: write(folder, "a.ppm", "P6\n1000000000 1000000000\n255\n"))
run_case("diff-directory", ["diff", "a.png", "d.png"], "d.png",
         setup=lambda folder: (an_image(folder), os.mkdir(os.path.join(folder, "d.png"))))
run_case("diff-output-is-input", ["diff", "a.png", "a.png", "-o", "a.png"], "is the input", setup=an_image)
run_case("diff-json-full-stdout", ["diff", "--json", "a.png", "a.png"], "cannot write to standard output",
         setup=an_image, stdout=open("/dev/full", "wb"))

# ---------------------------------------------------------------------------------------------
# Paths

LONG = "a" * 300
run_case("scene-symlink-loop", ["render", "loop", "-o", "x.png"], "cannot read 'loop': Too many levels",
         setup=lambda folder: os.symlink("loop", os.path.join(folder, "loop")))
run_case("bench-symlink-loop", ["bench", "--quick", "--scenes", "loop"], "'loop'",
         setup=lambda folder: os.symlink("loop", os.path.join(folder, "loop")))
run_case("output-under-loop", ["render", "rgb", "-o", "loop/x.png"], "'loop': Too many levels",
         setup=lambda folder: os.symlink("loop", os.path.join(folder, "loop")))
run_case("output-symlink-loop", ["render", "rgb", "--size", "8", "--backend", "ref", "-o", "loop.png"],
         "cannot write 'loop.png'",
         setup=lambda folder: os.symlink("loop.png", os.path.join(folder, "loop.png")))
run_case("scene-long-name", ["render", LONG + ".scene", "-o", "x.png"], "File name too long")
run_case("output-long-name", ["render", "rgb", "--size", "8", "--backend", "ref", "-o", LONG + ".png"],
         "File name too long")
run_case("scene-is-directory", ["render", "d.scene", "-o", "x.png"], "Is a directory",
         setup=lambda folder: os.mkdir(os.path.join(folder, "d.scene")))
run_case("output-is-directory", ["render", "rgb", "--size", "8", "--backend", "ref", "-o", "d.png"],
         "cannot write 'd.png'",
         setup=lambda folder: os.mkdir(os.path.join(folder, "d.png")))
run_case("output-under-file", ["render", "rgb", "-o", "f/x.png"], "'f' is a file, not a folder",
         setup=text_scene("f", "a file"))
run_case("scenegen-image-name", ["scenegen", "rgb", "-o", "x.png"], "ends in .scene (text) or .tsb")

# ---------------------------------------------------------------------------------------------
# Options

run_case("option-unknown", ["render", "rgb", "--bogus"], "unknown option '--bogus'")
run_case("option-value-missing", ["render", "rgb", "-o"], "needs a value")
run_case("option-value-is-option", ["render", "rgb", "-o", "--size", "32"], "but the option '--size' follows it")
run_case("option-empty-output", ["render", "rgb", "-o", ""], "the file name is empty")
run_case("option-size-zero", ["render", "rgb", "--size", "0", "-o", "x.png"], "--size")
run_case("option-threads-on-ref", ["render", "rgb", "--backend", "ref", "--threads", "2", "-o", "x.png"],
         "--threads applies to the cpu backend only")
run_case("option-frame-on-still", ["scenegen", "rgb", "--frame", "3", "-o", "x.scene"], "rgb is a still scene")
run_case("option-seed-on-file", ["render", "a.scene", "--seed", "2", "-o", "x.png"], "--seed applies to built-in",
         setup=text_scene("a.scene", "circlescene 1\ncount 1\n" + CIRCLE))
run_case("option-json-full-stdout", ["render", "rgb", "--size", "8", "--backend", "ref", "--json", "-o", "x.png"],
         "cannot write to standard output", stdout=open("/dev/full", "wb"), keeps=["x.png"])
run_case("option-image-to-full-stdout", ["render", "rgb", "--size", "8", "--backend", "ref", "-o", "-"],
         "cannot write the image to standard output", stdout=open("/dev/full", "wb"))

# ---------------------------------------------------------------------------------------------
# Signals during a large write (64 MiB and an fsync): the temporary is removed and the process ends
# by the signal (which a shell reports as 130 for SIGINT, 143 for SIGTERM).

for signal_number in (signal.SIGINT, signal.SIGTERM):
    name = "signal-" + signal.Signals(signal_number).name
    case_count += 1
    folder = fresh_folder(name)
    process = subprocess.Popen([tilescan, "render", "rgb", "--backend", "cpu", "--threads", "2", "--size", "2048",
                                "-o", "big.f32"], cwd=folder, stderr=subprocess.PIPE,
                               preexec_fn=limit_memory(MEMORY_LIMIT))
    deadline = time.monotonic() + TIME_LIMIT
    while time.monotonic() < deadline and process.poll() is None and not any(".tmp." in f for f in listing(folder)):
        time.sleep(0.001)
    check(name, process.poll() is None, "finished before its temporary was seen: make the image larger")
    process.send_signal(signal_number)
    stderr = process.communicate(timeout=TIME_LIMIT)[1].decode(errors="replace")
    check(name, process.returncode == -signal_number, f"ended with {process.returncode}, not by the signal")
    check(name, stderr == "", f"stderr: {stderr!r}")
    check(name, listing(folder) == [], f"left behind: {listing(folder)}")
    print(f"{'FAILED' if any(f.startswith(name + ':') for f in failures) else 'ok'}  {name}")

# ---------------------------------------------------------------------------------------------
# On a terminal: the bar of a sequence ends its line before the summary; a single render that takes
# more than a second shows the fraction done and a running clock, erased at the end; --quiet
# draws nothing.


def run_on_terminal(name, arguments):
    global case_count
    case_count += 1
    folder = fresh_folder(name)
    master, secondary = pty.openpty()
    process = subprocess.Popen([tilescan] + arguments, cwd=folder, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=secondary)
    os.close(secondary)
    output = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the command closed the terminal's last descriptor
            break
        if not chunk:
            break
        output += chunk
    process.wait(timeout=TIME_LIMIT)
    os.close(master)
    check(name, process.returncode == 0, f"exit {process.returncode}")
    return output.decode(errors="replace")


terminal = run_on_terminal("terminal-frames",
                           ["render", "bouncingballs", "--frames", "3", "--size", "16", "-o", "b.png"])
check("terminal-frames", "] 3/3\r\nwrote b_0000.png ... b_0002.png" in terminal, f"stderr: {terminal!r}")
check("terminal-frames", not terminal.endswith("\r\n\r\n"), f"an empty line at the end: {terminal!r}")
print(f"{'FAILED' if any(f.startswith('terminal-frames:') for f in failures) else 'ok'}  terminal-frames")
# About two seconds of ref rendering on one core; the clock appears after the first.
terminal = run_on_terminal("terminal-clock", ["render", "rand10k", "--backend", "ref", "--size", "2048", "-o", "r.png"])
check("terminal-clock", re.search(r"\rrendering 2048x2048 on ref \.\.\. \d+ %, 1 s", terminal) is not None,
      f"stderr: {terminal!r}")
check("terminal-clock", "\r\x1b[Kwrote r.png" in terminal, f"stderr: {terminal!r}")
print(f"{'FAILED' if any(f.startswith('terminal-clock:') for f in failures) else 'ok'}  terminal-clock")
terminal = run_on_terminal("terminal-quiet",
                           ["render", "rand10k", "--backend", "ref", "--size", "2048", "-q", "-o", "r.png"])
check("terminal-quiet", terminal == "", f"stderr: {terminal!r}")
print(f"{'FAILED' if any(f.startswith('terminal-quiet:') for f in failures) else 'ok'}  terminal-quiet")

print(f"{case_count - len({f.split(':')[0] for f in failures})} of {case_count} hostile cases passed")
for failure in failures:
    print("FAILED " + failure)
sys.exit(1 if failures else 0)
