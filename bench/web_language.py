"""How long the browser client takes to switch language mid-game, and how big the catalogs it loads are.

python bench/web_language.py      (needs /usr/bin/chromium and playwright)
"""

from __future__ import annotations

import gzip
import statistics
import sys
import tempfile
from pathlib import Path

import httpx2 as httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, Server

SWITCH = """async (code) => {
  const start = performance.now();
  const select = document.querySelector('#language');
  select.value = code;
  select.dispatchEvent(new Event('change'));
  while (document.documentElement.lang !== code) await new Promise((r) => setTimeout(r, 1));
  const written = performance.now() - start;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return [written, performance.now() - start];
}"""


def main(rounds: int = 20) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        server = Server(f"sqlite:///{tmp}/rooms.db", "--seed", "3", "--no-scores").start()
        try:
            for code in ("en", "it", "hr", "su", "co"):
                body = httpx.get(f"{server.url}/i18n/{code}.json").content
                print(f"/i18n/{code}.json: {len(body):,} bytes, {len(gzip.compress(body)):,} gzipped")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1100, "height": 860})
                page.goto(server.url + "/")
                form = page.locator("#create-form")
                form.get_by_label("Your name").fill("Ann")
                form.get_by_label("People playing").fill("1")
                form.get_by_role("button", name="Create room").click()
                page.get_by_role("button", name="Start the game").click()
                page.locator("#cards td").first.wait_for()  # mid-game: every card drawn
                codes = ["it", "hr", "su", "co", "en"]
                written, painted = [], []
                for i in range(rounds):
                    w, shown = page.evaluate(SWITCH, codes[i % len(codes)])
                    written.append(w)
                    painted.append(shown)
                browser.close()
        finally:
            server.stop()
    print(
        f"switch (catalog fetched, page written again): median {statistics.median(written):.1f} ms, "
        f"max {max(written):.1f} ms over {rounds} switches"
    )
    print(f"until the next frame is painted: median {statistics.median(painted):.1f} ms")


if __name__ == "__main__":
    main()
