"""The desk at 80×24 and at 200×50: nothing essential cut off, the width used.

Pilot at both sizes on the demo; the assertions are on widget regions (inside the
screen, beside or above each other) and on what the table and footer show.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from memdesk.core.store import Store
from memdesk.tui.fit_table import FitColumn, FitTable, fit_widths
from memdesk.tui.screens.browser import BrowserScreen
from memdesk.tui.screens.conflicts import ConflictsScreen
from memdesk.tui.screens.dialogs import EditScreen, PickEntryScreen
from memdesk.tui.screens.help import HelpScreen
from memdesk.tui.widgets import DeskFooter
from screen_app import ScreenApp, demo_store
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Button, OptionList, TextArea
from tui_helpers import make_app, ready, settle, wait_for

pytestmark = pytest.mark.anyio

SMALL = (80, 24)
WIDE = (200, 50)


def inside(widget: Widget, screen: Region) -> bool:
    region = widget.region
    return region.area > 0 and screen.contains_region(region)


def table_fills(table: FitTable) -> None:
    """The shown columns take exactly the table's width: nothing cut, nothing unused,
    and the header row shows every column's label up to the right edge."""
    used = sum(width + 2 * table.cell_padding for width in table.widths.values())
    assert used == table.available_width(), (table.widths, table.available_width())
    assert table.virtual_size.width == used  # no sideways scrolling
    shown = [c for c in table.fit_columns if c.key in table.widths]
    assert [c.key.value for c in table.ordered_columns] == [c.key for c in shown]
    assert [c.width for c in table.ordered_columns] == [table.widths[c.key] for c in shown]
    header = table.render_line(0).text
    assert header.rstrip().endswith(shown[-1].label)


def footer_keys(app) -> dict[str, Widget]:  # type: ignore[no-untyped-def]
    footer = app.screen.query_one(DeskFooter)
    return {getattr(key, "action", ""): key for key in footer.query("FooterKey")}


def assert_help_and_quit_shown(app) -> None:  # type: ignore[no-untyped-def]
    keys = footer_keys(app)
    screen = app.screen.region
    palette = next((k for k in keys.values() if k.has_class("-command-palette")), None)
    for action in ("help", "quit"):
        key = keys[action]
        assert inside(key, screen), (action, key.region)
        if palette is not None:  # docked on the right: it would hide what is under it
            assert key.region.right <= palette.region.x
    text = "".join(str(k.render()) for k in keys.values())
    assert "Quit" in text and "Help" in text


# -- the queue ----------------------------------------------------------------------------
async def test_queue_at_80x24_fits_its_columns_and_keeps_help_and_quit(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        await settle(pilot)
        table = app.screen.query_one("#queue-table", FitTable)
        table_fills(table)
        assert {"mark", "summary", "flags"} <= set(table.widths)
        assert table.widths["summary"] >= 30
        assert not table.show_horizontal_scrollbar
        assert_help_and_quit_shown(app)


async def test_queue_at_200_columns_gives_the_slack_to_the_summary(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await settle(pilot)
        table = app.screen.query_one("#queue-table", FitTable)
        table_fills(table)
        assert set(table.widths) == {c.key for c in table.fit_columns}  # all shown
        assert table.widths["summary"] > 100
        # The others are as wide as their content: "transcript", "experience"...
        assert table.widths["source"] == len("transcript")
        assert table.widths["kind"] == len("experience")
        assert_help_and_quit_shown(app)


async def test_queue_refits_when_the_terminal_is_resized(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await settle(pilot)
        await pilot.press("down", "down")
        await pilot.resize_terminal(*SMALL)
        await settle(pilot)
        table = app.screen.query_one("#queue-table", FitTable)
        table_fills(table)
        assert table.cursor_row == 2  # the rebuild kept the row under the cursor
        assert app.screen.current_entry().id == "cand-003"


async def test_queue_follows_a_width_change_that_keeps_every_column(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await settle(pilot)
        table = app.screen.query_one("#queue-table", FitTable)
        wide_summary = table.widths["summary"]
        await pilot.resize_terminal(160, 50)
        await settle(pilot)
        table_fills(table)
        assert set(table.widths) == {c.key for c in table.fit_columns}
        assert table.widths["summary"] == wide_summary - 40


# -- the browser --------------------------------------------------------------------------
@pytest.mark.parametrize("size", [SMALL, WIDE])
async def test_browser_columns_fill_the_width(store: Store, size: tuple[int, int]) -> None:
    app = make_app(store)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.rows)
        await settle(pilot)
        table = app.screen.query_one("#browser-table", FitTable)
        table_fills(table)
        assert table.widths["summary"] >= (30 if size == SMALL else 100)
        assert_help_and_quit_shown(app)


# -- dialogs ------------------------------------------------------------------------------
async def test_edit_dialog_buttons_are_on_screen_at_80x24(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, EditScreen))
        await settle(pilot)
        screen = app.screen.region
        for button in app.screen.query(Button):
            assert inside(button, screen), (button.id, button.region)
        assert inside(app.screen.query_one("#edit-box"), screen)
        assert inside(app.screen.query_one("#edit-summary"), screen)
        # The buttons work from there: cancel closes the form.
        await pilot.click("#edit-cancel")
        await wait_for(pilot, lambda: not isinstance(app.screen, EditScreen))


async def test_edit_dialog_keeps_its_natural_height_on_a_tall_terminal(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, EditScreen))
        await settle(pilot)
        box = app.screen.query_one("#edit-box").region
        assert box.height < 40 and box.width == 90
        fields = app.screen.query_one("#edit-fields")
        assert fields.virtual_size.height <= fields.size.height  # nothing to scroll


async def test_picker_and_help_fit_80x24(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(app.screen, PickEntryScreen))
        await settle(pilot)
        screen = app.screen.region
        assert inside(app.screen.query_one("#pick-box"), screen)
        assert inside(app.screen.query_one("#pick-list"), screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, PickEntryScreen))
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await settle(pilot)
        assert inside(app.screen.query_one("#help-box"), screen)
        assert inside(app.screen.query_one("#help-note"), screen)


# -- the conflict screen --------------------------------------------------------------------
async def _conflicts(pilot) -> ConflictsScreen:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False))
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ConflictsScreen)
    return screen


async def test_conflicts_stack_on_a_narrow_terminal(tmp_path: Path) -> None:
    app = ScreenApp(demo_store(tmp_path), ConflictsScreen)
    async with app.run_test(size=SMALL) as pilot:
        screen = await _conflicts(pilot)
        listing = screen.query_one("#conflict-list", OptionList).region
        detail = screen.query_one("#conflict-detail").region
        assert listing.bottom <= detail.y and detail.width >= 76  # above, full width
        sides = list(screen.query(".side"))
        assert len(sides) >= 2
        for side in sides:
            assert side.region.right <= screen.region.right
            assert side.region.width >= 30
        await pilot.press("down")  # the contradiction: two entries side by side
        await settle(pilot)
        for side in screen.query(".side"):
            assert side.region.width >= 30 and side.region.right <= screen.region.right
        await pilot.press("up")
        await settle(pilot)
        await pilot.press("e")  # the merge editor takes the list's rows
        await settle(pilot)
        editor = screen.query_one("#merge-editor", TextArea)
        assert inside(editor, screen.region)
        assert not screen.query_one("#conflict-list").display
        await pilot.press("escape")
        await settle(pilot)
        assert screen.query_one("#conflict-list").display


async def test_conflicts_side_by_side_on_a_wide_terminal(tmp_path: Path) -> None:
    app = ScreenApp(demo_store(tmp_path), ConflictsScreen)
    async with app.run_test(size=WIDE) as pilot:
        screen = await _conflicts(pilot)
        listing = screen.query_one("#conflict-list", OptionList).region
        detail = screen.query_one("#conflict-detail").region
        assert listing.right <= detail.x and listing.y == detail.y  # beside


# -- the fitting rule itself ----------------------------------------------------------------
COLUMNS = (
    FitColumn("id", "id", minimum=4, maximum=10),
    FitColumn("summary", "summary", slack=True),
    FitColumn("kind", "kind", minimum=4, maximum=12, drop_order=1),
    FitColumn("source", "source", minimum=6, maximum=12, drop_order=2),
)


def test_fit_gives_the_slack_to_one_column_and_sizes_the_rest_to_content() -> None:
    widths = fit_widths(COLUMNS, {"id": 8, "kind": 10, "source": 30}, 100, padding=1)
    assert widths == {"id": 8, "kind": 10, "source": 12, "summary": 100 - 8 - 10 - 12 - 8}


def test_fit_leaves_out_the_least_needed_columns_first() -> None:
    content = {"id": 8, "kind": 10, "source": 10}
    assert set(fit_widths(COLUMNS, content, 60, slack_minimum=24)) == {
        "id",
        "summary",
        "kind",
        "source",
    }
    assert set(fit_widths(COLUMNS, content, 50, slack_minimum=24)) == {"id", "summary", "kind"}
    assert set(fit_widths(COLUMNS, content, 40, slack_minimum=24)) == {"id", "summary"}


def test_fit_shrinks_columns_to_their_minimum_when_nothing_is_left_to_drop() -> None:
    widths = fit_widths(COLUMNS, {"id": 10}, 32, slack_minimum=24)
    assert widths == {"id": 4, "summary": 24}
    # Narrower still: the summary keeps its minimum and the table scrolls sideways.
    assert fit_widths(COLUMNS, {"id": 10}, 20, slack_minimum=24)["summary"] == 24
