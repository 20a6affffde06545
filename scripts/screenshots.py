"""Regenerate screenshots/: every screen of the TUI on a fresh copy of the demo project.

    python scripts/screenshots.py [--out screenshots] [--no-model] [--size 80x24]
                                  [--only queue,edit]

SVG from Textual (`App.save_screenshot`), PNG from it with `rsvg-convert` (Debian:
librsvg2-bin) and a CJK-capable monospace font (fonts-wqy-microhei) so Chinese renders;
without rsvg-convert only SVGs are written. The search model is loaded first (unless
--no-model) so the queue shows duplicate / contradiction flags.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from memdesk.core.demo import copy_demo_project
from memdesk.core.store import Store
from memdesk.tui.app import MemdeskApp, build_app
from memdesk.tui.services import Services

SIZE = (120, 36)
TODAY = dt.date(2026, 11, 1)
# Fonts for PNG: a Latin monospace first, then one with CJK glyphs.
PNG_FONTS = '"DejaVu Sans Mono", "WenQuanYi Micro Hei Mono", "Noto Sans Mono CJK SC", monospace'

Step = Callable[[object], Awaitable[None]]


async def settle(pilot, predicate: Callable[[], bool] | None = None, timeout: float = 10) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while predicate is not None and not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("screen did not settle")
        await pilot.pause(0.05)
    await pilot.pause(0.2)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.1)


def shots() -> list[tuple[str, Callable]]:
    async def queue(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)

    async def queue_flags(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("space", "down", "space", "down", "down", "down", "down", "down")
        await settle(pilot)

    async def edit(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("e")
        await settle(pilot)

    async def supersede(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("down", "S")
        await settle(pilot)

    async def browser(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("b")
        await settle(pilot, lambda: bool(getattr(pilot.app.screen, "rows", None)))
        await pilot.press("down", "down", "down", "down", "down", "down")
        await settle(pilot)

    async def browser_search(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("b")
        await settle(pilot, lambda: bool(getattr(pilot.app.screen, "rows", None)))
        await pilot.press("slash", *"模板")
        await settle(pilot, lambda: pilot.app.screen.search_ids is not None)
        await pilot.press("enter")
        await settle(pilot)

    async def help_screen(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("question_mark")
        await settle(pilot)

    async def palette(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"sup")
        await settle(pilot)

    async def consolidation(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("o")
        await settle(pilot, lambda: getattr(pilot.app.screen, "plan", None) is not None)

    found = [
        ("queue", queue),
        ("queue-selection-flags", queue_flags),
        ("edit", edit),
        ("supersede", supersede),
        ("browser", browser),
        ("browser-search", browser_search),
        ("help", help_screen),
        ("palette", palette),
        ("consolidation", consolidation),
    ]
    for mode, key in (("conflicts", "c"), ("context", "p"), ("stats", "s"), ("memory-files", "f")):

        async def lazy(pilot, key: str = key) -> None:  # type: ignore[no-untyped-def]
            await pilot.press(key)
            await settle(pilot)

        found.append((mode, lazy))
    return found


def to_png(svg: Path, png: Path) -> bool:
    tool = shutil.which("rsvg-convert")
    if tool is None:
        return False
    text = svg.read_text("utf-8")
    # librsvg drops leading spaces of <text> runs unless told to keep them.
    text = text.replace("<svg ", '<svg xml:space="preserve" ', 1)
    text = re.sub(r"font-family: Fira Code, monospace;", f"font-family: {PNG_FONTS};", text)
    text = text.replace('font-family: "Fira Code";', f"font-family: {PNG_FONTS};")
    fixed = png.with_suffix(".tmp.svg")
    fixed.write_text(text, "utf-8")
    try:
        subprocess.run([tool, "-z", "1", str(fixed), "-o", str(png)], check=True)
    finally:
        fixed.unlink(missing_ok=True)
    return True


async def take(name: str, step, out: Path, search, size: tuple[int, int] = SIZE) -> Path | None:  # type: ignore[no-untyped-def]
    root = copy_demo_project(Path(tempfile.mkdtemp(prefix="memdesk-shot-")) / "demo")
    store = Store.open(root)
    services = Services(store, load_model=False, today=lambda: TODAY)
    app: MemdeskApp = build_app(store, watch=False, services=services)
    app.display_dir = "~/lantern"
    async with app.run_test(size=size) as pilot:
        await settle(pilot, lambda: services.loaded and app.data_version > 0)
        if search is not None:
            services.search = search
            services.search_status = search_status(search)
            services.refresh_duplicates()
            app.changed()
            await settle(pilot)
        await step(pilot)
        path = out / f"{name}.svg"
        app.save_screenshot(filename=path.name, path=str(out))
    return path


def search_status(search) -> str:  # type: ignore[no-untyped-def]
    return f"search: hybrid ({search.model_status})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="screenshots")
    parser.add_argument("--no-model", action="store_true", help="text search only")
    parser.add_argument(
        "--size", default=f"{SIZE[0]}x{SIZE[1]}", help="terminal COLUMNSxROWS (check 80x24)"
    )
    parser.add_argument("--only", default="", help="comma-separated shot names")
    args = parser.parse_args()
    columns, _, rows = args.size.partition("x")
    size = (int(columns), int(rows))
    only = {name for name in args.only.split(",") if name}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    search = None
    if not args.no_model:
        root = copy_demo_project(Path(tempfile.mkdtemp(prefix="memdesk-shot-")) / "demo")
        services = Services(Store.open(root))
        t0 = time.perf_counter()
        search = services.build_search()
        print(f"search ready in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    for name, step in shots():
        if only and name not in only:
            continue
        svg = asyncio.run(take(name, step, out, search, size))
        if svg is None:
            continue
        made = to_png(svg, svg.with_suffix(".png"))
        print(f"{svg}" + (f" + {svg.with_suffix('.png').name}" if made else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
