"""Quit latency in a real terminal (tmux): key `q` → the desk's process is gone.

    python bench/quit_bench.py [--entries 10000] [--runs 5] [--model] [--cache DIR]
                               [--compare OTHER/.venv/bin/memdesk]

The real program (`memdesk open` on a generated store, the same as bench/tui_bench.py
makes) runs in a tmux pane under a shell. Once the queue shows its rows, `q` is sent
with `tmux send-keys` and the clock runs until the process has ended (its pidfd is
readable: the exit itself, not the shell's prompt). Three moments:

- start: `q` as soon as the queue is on screen (the full read, the catch-up ingest,
  the flags' pass, the keeper's tokenization, the conflict pass are running then);
- busy: `q` 0.5 s later (a person reads the first row; the same work goes on);
- steady: `q` once the process has used no CPU for 1.5 s (every start-up pass done).

After every quit the pane is checked: normal screen (alternate_on 0), no mouse
reporting, cursor shown, the shell's `EXIT=0`. The baseline row is a bare Textual app
(one `q` binding, nothing else) quit the same way, in the same run: the floor that
Python and Textual set. `--model` loads the search model as a person's desk does
(default: MEMDESK_NO_MODEL=1, as bench/tui_bench.py). Say `uptime` beside the figures.
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tui_bench import cached_store  # noqa: E402

TMUX = shutil.which("tmux") or "tmux"
BARE_APP = """
import os, time
from textual.app import App
from textual.widgets import Static

class Bare(App):
    BINDINGS = [("q", "quit", "quit")]
    def compose(self):
        yield Static("candidates waiting (bare textual app)")
    async def action_quit(self):
        with open(os.environ["MEMDESK_QUIT_TRACE"], "a") as out:
            out.write(f"{time.time():.6f} q handled\\n")
        self.exit()

Bare().run()
"""


def tmux(*args: str) -> str:
    return subprocess.run([TMUX, *args], capture_output=True, text=True, check=True).stdout


class Pane:
    def __init__(self, env: dict[str, str]) -> None:
        self.name = f"memdesk-quit-{uuid.uuid4().hex[:8]}"
        extra = [x for k, v in env.items() for x in ("-e", f"{k}={v}")]
        for _attempt in range(5):  # the server may be exiting with the last session
            done = subprocess.run(
                [TMUX, "new-session", "-d", "-s", self.name, "-x", "120", "-y", "36", *extra,
                 "-e", "PS1=$ ", "bash --norc --noprofile"], capture_output=True, text=True,
            )  # fmt: skip
            if done.returncode == 0:
                break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"tmux new-session: {done.stderr}")

    def screen(self) -> str:
        return tmux("capture-pane", "-p", "-t", self.name)

    def flag(self, name: str) -> str:
        return tmux("display-message", "-p", "-t", self.name, f"#{{{name}}}").strip()

    def close(self) -> None:
        subprocess.run([TMUX, "kill-session", "-t", self.name], capture_output=True)


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def wait_idle(pid: int, quiet: float = 1.5, timeout: float = 300.0) -> None:
    """Until the process has used no CPU for `quiet` seconds."""
    last, since = cpu_ticks(pid), time.monotonic()
    deadline = since + timeout
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = cpu_ticks(pid)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
    raise TimeoutError("the desk never went idle")


STEPS = ("q handled", "terminal restored", "app stopped", "writes done", "leaving")


def one_quit(
    command: str, moment: str, env: dict[str, str], tmp: Path
) -> tuple[float, str, dict[str, float]]:
    """Seconds from `q` sent to the process gone, what was wrong with the pane after
    ("" when it was restored), and when each step of the quit the desk notes
    (MEMDESK_QUIT_TRACE, tui/run.py) came, in seconds after `q` was sent."""
    pane = Pane(env)
    pidfile = tmp / f"{pane.name}.pid"
    tracefile = tmp / f"{pane.name}.trace"
    try:
        time.sleep(0.2)
        pane_cmd = (
            f"MEMDESK_QUIT_TRACE={tracefile} sh -c 'echo $$ > {pidfile}; exec {command}'; "
            "echo EXIT=$?"
        )
        tmux("send-keys", "-t", pane.name, pane_cmd, "Enter")
        deadline = time.monotonic() + 180
        while "candidates waiting" not in pane.screen():
            if time.monotonic() > deadline:
                raise TimeoutError(f"no queue on screen:\n{pane.screen()}")
            time.sleep(0.01)
        pid = int(pidfile.read_text())
        if moment == "busy":
            time.sleep(0.5)
        elif moment == "steady":
            wait_idle(pid)
        fd = os.pidfd_open(pid)
        try:
            sent = time.time()
            t0 = time.perf_counter()
            tmux("send-keys", "-t", pane.name, "q")
            ready, _, _ = select.select([fd], [], [], 60)
            took = time.perf_counter() - t0
        finally:
            os.close(fd)
        if not ready:
            raise TimeoutError("the desk did not quit within 60 s")
        deadline = time.monotonic() + 10
        while "EXIT=" not in pane.screen() and time.monotonic() < deadline:
            time.sleep(0.02)
        wrong = [
            what
            for what, bad in (
                ("alt screen", pane.flag("alternate_on") != "0"),
                ("mouse", pane.flag("mouse_any_flag") != "0"),
                ("cursor hidden", pane.flag("cursor_flag") != "1"),
                ("exit code", "EXIT=0" not in pane.screen()),
            )
            if bad
        ]
        steps = {}
        if tracefile.exists():
            for line in tracefile.read_text("utf-8").splitlines():
                when, step = line.split(" ", 1)
                steps[step] = float(when) - sent
        return took, ", ".join(wrong), steps
    finally:
        pane.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--model", action="store_true", help="load the search model too")
    parser.add_argument("--cache", type=Path, help="keep the generated store here")
    parser.add_argument("--moments", default="start,busy,steady")
    parser.add_argument(
        "--compare",
        type=Path,
        help="another install's `memdesk` script (e.g. a checkout of the commit before): "
        "its rows are measured in the same run, interleaved",
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-quit-bench-"))
    try:
        big = tmp / "big"
        cached_store(big, args.entries, args.cache)
        script = Path(sys.executable).parent / "memdesk"
        memdesk = (
            f"{script} open {big}"
            if script.exists()
            else f"{sys.executable} -m memdesk.cli open {big}"
        )
        bare = tmp / "bare_app.py"
        bare.write_text(BARE_APP, "utf-8")
        env = {} if args.model else {"MEMDESK_NO_MODEL": "1"}
        plans = [("baseline: bare Textual app", f"{sys.executable} {bare}", "steady")]
        n = args.entries
        for moment in args.moments.split(","):
            if args.compare:
                plans.append((f"before {n}: q at {moment}", f"{args.compare} open {big}", moment))
            plans.append((f"memdesk {n}: q at {moment}", memdesk, moment))
        results: dict[str, tuple[list[float], list[str]]] = {p[0]: ([], []) for p in plans}
        traced: dict[str, dict[str, list[float]]] = {p[0]: {} for p in plans}
        for _ in range(args.runs):  # interleaved: the machine's load hits every row alike
            for label, command, moment in plans:
                took, wrong, steps = one_quit(command, moment, env, tmp)
                for step, when in steps.items():
                    traced[label].setdefault(step, []).append(when)
                results[label][0].append(took)
                if wrong:
                    results[label][1].append(wrong)
                seen = " ".join(f"{k}@{v * 1000:.0f}" for k, v in steps.items())
                print(f"  {label}: {took * 1000:.0f} ms {wrong} {seen}", file=sys.stderr)
        print(f"load: {os.getloadavg()[0]:.2f} (1 min), model {'on' if args.model else 'off'}")
        print(f"{'measure':36} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'runs':>5}  terminal")
        for label, (samples, wrongs) in results.items():
            s = sorted(samples)
            p95 = s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]
            state = "restored" if not wrongs else "; ".join(wrongs)
            print(
                f"{label:36} {statistics.median(s) * 1000:10.0f} {p95 * 1000:8.0f} "
                f"{s[-1] * 1000:8.0f} {len(s):5}  {state}"
            )
        print("\nwhen each step came, ms after `q` was sent (median; MEMDESK_QUIT_TRACE):")
        for label, steps in traced.items():
            if steps:
                cells = [
                    f"{k} {statistics.median(steps[k]) * 1000:.0f}" for k in STEPS if k in steps
                ]
                print(f"  {label:34} " + " → ".join(cells))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
