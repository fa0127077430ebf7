"""The report's HTML page in a real headless browser (Debian's chromium, driven by Playwright): it renders
offline, logs no console error, draws every pool's picture with a block per placed workload, and a
screenshot is kept as an artefact (build/test-artefacts/). Skipped only where chromium cannot be installed;
never in CI (scripts/test installs it)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from builders import ROOT
from report_inputs import preview_document

from compute_guard.report import build, read, render

ARTEFACTS = Path(os.environ.get("COMPUTE_GUARD_ARTEFACTS", ROOT / "build" / "test-artefacts"))


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: scripts/test installs it (apt-get install chromium)")
        pytest.skip("no chromium here (scripts/test installs it with apt-get where it can)")
    return found


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    executable = chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


def open_report(browser, html: str, tmp_path: Path):
    path = tmp_path / "report.html"
    path.write_text(html)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, errors, requests


@pytest.mark.parametrize("stack", ["dev", "broken"])
def test_the_page_renders_every_pool_offline_without_errors(browser, example, tmp_path, stack):
    resources = example(stack)
    report = build(read(json.dumps(preview_document(resources, {"compute:platform": "kubernetes"})).encode()))
    page, errors, requests = open_report(browser, render(report, "html"), tmp_path)
    assert errors == []
    assert all(url.startswith("file://") for url in requests)  # one self-contained file: no network
    sections = page.locator("section.pool")
    assert sections.count() == len(report.pools) == 2
    for view in report.pools:
        section = page.locator(f'section.pool[data-pool="{view.cluster}/{view.pool}"]')
        picture = section.locator("svg.picture")
        assert picture.count() == 1 and picture.bounding_box()["width"] > 600  # drawn, at its size
        # a block per counted workload and resource it requests, each as wide as its share of the pool (a workload
        # whose one Pod fits no node is not counted, as pool-capacity does not count it)
        blocks = picture.locator("rect.use")
        assert blocks.count() == 3 * len([use for use in view.uses if use.counted])
        # every label inside the picture: "13.56 GiB of 10.41 GiB (130%)" was clipped by the SVG's width
        box = picture.bounding_box()
        for label in picture.locator("text").all():
            edge = label.bounding_box()
            assert edge["x"] + edge["width"] <= box["x"] + box["width"], label.inner_text()
        for row in view.uses:
            assert section.locator(f'tr[data-workload="{row.name}"]').count() == 1
    verdict = page.locator("#verdict").inner_text()
    assert verdict == ("5 mandatory violations: the preview fails" if stack == "broken" else "No mandatory violation")
    if stack == "broken":
        assert page.locator("#findings tbody tr").count() == 5
        stateful = page.locator('section.pool[data-pool="compute/stateful"] svg.picture text', has_text="107%")
        assert stateful.count() == 1  # the overflow the numbers say, shown
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / f"report-{stack}.png"), full_page=True)
    assert (ARTEFACTS / f"report-{stack}.png").stat().st_size > 10_000
    page.close()


def test_a_block_is_as_wide_as_its_share_of_the_pool(browser, example, tmp_path):
    """The picture is the numbers: the api's CPU block is 2 x 500m of the 12 cores of 'general' at maxSize."""
    report = build(read(json.dumps(preview_document(example("dev"), {"compute:platform": "kubernetes"})).encode()))
    page, errors, _ = open_report(browser, render(report, "html"), tmp_path)
    picture = page.locator('section.pool[data-pool="compute/general"] svg.picture')
    bar = picture.locator("rect").first.bounding_box()  # the CPU bar: the pool's whole allocatable
    api = picture.locator("rect.use", has=page.locator("title", has_text="api:")).first.bounding_box()
    assert api["width"] / bar["width"] == pytest.approx(2 * 500 / 12000, rel=0.02)
    assert errors == []
    page.close()
