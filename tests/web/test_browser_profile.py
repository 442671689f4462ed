"""The profile page in Debian's chromium (Playwright), on a desktop and on a phone: the figures, the luck
and decisions chart, achievements, tables and the history with replay links; axe-core finds nothing serious;
the public profile, hidden by the switch. Skips without chromium."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, insert, select

from fivedice.web.account_tables import account_tables
from fivedice.web.db import make_tables
from fivedice.web.profile_tables import profile_tables
from tests.web.conftest import CHROMIUM, Server, axe_problems

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed; browser tests skipped.", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="playwright is not installed; browser tests skipped.")

PASSWORD = "correct horse battery"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--seed", "3", "--no-scores")
    srv.start()
    yield srv
    srv.stop()


def seed_games(db: str, name: str) -> None:
    """Three finished games of ``name`` (as the server records them) and a skill rating."""
    tables = make_tables()
    accounts, pt = account_tables(tables).accounts, profile_tables(tables)
    engine = create_engine(db)
    with engine.begin() as conn:
        account = conn.execute(select(accounts.c.id).where(accounts.c.name == name)).scalar_one()
        for i, (total, loss, yahtzees) in enumerate([(231, 12.0, 0), (262, 3.5, 1), (248, 0.0, 0)]):
            conn.execute(
                insert(pt.games).values(
                    account=account, code=f"ROOM{i}", game_no=1, seat=0, at=1.7e9 + 86400 * i, spec="yahtzee",
                    players=2, total=total, place=1 + i % 2, upper_bonus=35 * (i > 0), has_bonus=True,
                    yahtzees=yahtzees, decisions=40, loss=loss, optimal=254.5877,
                    opponents=json.dumps([["Bob", 2 - i % 2]]), challenge=None, benchmark=None, replay=None,
                )
            )  # fmt: skip
        conn.execute(
            insert(pt.ratings).values(account=account, spec="yahtzee", mu=27.1, sigma=7.2, games=3, updated=1.0)
        )
    engine.dispose()


def test_the_profile_page_on_desktop_and_phone(server: Server, browser: Any, tmp_path: Path) -> None:
    url = f"http://localhost:{server.port}"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    made = context.request.post(
        url + "/api/accounts", data={"name": "Ann", "password": PASSWORD}, headers={"origin": url}
    )
    assert made.status == 201
    seed_games(f"sqlite:///{tmp_path / 'rooms.db'}", "Ann")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url + "/profile")
    page.locator("#profile[data-ready]").wait_for()
    assert page.locator("#profile-title").inner_text() == "Ann's profile"
    figures = page.locator("dl.figures").inner_text()
    assert "27.1 ± 7.2" in figures
    assert "points lost per decision" in figures
    chart = page.locator("svg.chart.split")
    assert "Analysed games: 3" in (chart.get_attribute("aria-label") or "")
    assert page.locator("svg.chart.split path.luck").count() == 1
    assert "Beat your best" in page.locator("ul.achievements").inner_text()
    assert page.locator("table.profile-table").count() >= 4
    assert "A+ (0.00 per decision)" in page.locator("table.profile-table").nth(3).inner_text()
    assert page.locator("#boards-body").inner_text().count("Ann") == 2
    assert axe_problems(page) == []
    page.screenshot(path=str(tmp_path / "profile-desktop.png"), full_page=True)

    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    public = phone.new_page()
    public.goto(url + "/profile/Ann")
    public.locator("#profile[data-ready]").wait_for()
    assert public.locator("#public").count() == 0  # the switch is on the player's own page only
    assert public.locator("svg.chart.split").is_visible()
    width = public.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390  # nothing wider than the phone: tables scroll in their own boxes
    assert axe_problems(public) == []
    public.screenshot(path=str(tmp_path / "profile-phone.png"), full_page=True)

    page.locator("#public").uncheck()
    page.locator("#profile-status").filter(has_text="Your profile is hidden.").wait_for()
    public.reload()
    public.locator("#profile[data-ready]").wait_for()
    assert public.locator("#profile-status").inner_text() == "There is no public profile called 'Ann'."
    assert public.locator("#boards").is_visible()  # the leaderboards are public, without Ann now
    public.locator("#boards-rules").select_option("yacht")
    public.locator("#boards-title").filter(has_text="Ratings: yacht").wait_for()
    assert axe_problems(public) == []
    assert errors == []
