// End-to-end checks of `evalearn serve` in Debian's chromium, driven by playwright-core.
// Run by tests/integration/web_browser.rs, which starts the server and passes:
//   node e2e.mjs SCENARIO   with EVALEARN_URL (the server), EVALEARN_SHOTS (folder for
//   screenshots), EVALEARN_RUNS (the server's --runs folder) and EXPECT_* values.
// Prints "ok SCENARIO" and exits 0, or prints what failed (a screenshot of the failure
// is saved too) and exits 1. Waits are failure timeouts only: nothing is timed.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const scenario = process.argv[2];
const base = process.env.EVALEARN_URL;
const shots = process.env.EVALEARN_SHOTS;
const runs = process.env.EVALEARN_RUNS;
// Generous: both cores may be busy with other tests.
const WAIT = 120_000;

function check(condition, message) {
  if (!condition) throw new Error(message);
}

async function newGame(page, { game = "brazilian", human = "first", depth = "2", position = "" } = {}) {
  await page.selectOption("#set-game", game);
  await page.selectOption("#set-human", human);
  await page.selectOption("#set-level-kind", "depth");
  await page.fill("#set-level", depth);
  await page.fill("#set-position", position);
  // The page opens on a game already: wait for another one.
  const before = await page.evaluate(() => document.body.dataset.game || "");
  await page.click("#btn-new");
  await page.waitForFunction(
    (old) => (document.body.dataset.game || "") !== old
      && document.querySelector("#board svg")
      && document.querySelector("#status").textContent.includes("to move"),
    before,
    { timeout: WAIT },
  );
}

// The first screen: a game at the start, the person to move, against the engine the
// server chose (EXPECT_ENGINE), with every model listed once (EXPECT_MODELS of the game).
async function checkFirstScreen(page) {
  check(await page.evaluate(() => !!document.body.dataset.game), "the page should open on a game");
  check((await page.locator("#board svg").count()) === 1, "the first screen should show a board");
  const fen = await page.locator("#position").textContent();
  check(fen === process.env.EXPECT_FEN, `the first position is ${fen}, expected the start ${process.env.EXPECT_FEN}`);
  const status = await page.locator("#status").textContent();
  check(status.includes("to move (you)"), `the person should be to move, the page says ${status}`);
  const engine = await page.locator("#set-engine").inputValue();
  check(engine === process.env.EXPECT_ENGINE, `the engine should be ${process.env.EXPECT_ENGINE}, is ${engine}`);
  const label = await page.locator("#engine-label").textContent();
  const model = process.env.EXPECT_ENGINE.replace(/^model:/, "");
  check(label.includes(model), `the game should be played by ${model}, the page says ${label}`);
  const listed = await page.$$eval("#set-engine option", (options) => options.map((o) => o.value).filter((v) => v.startsWith("model:")));
  const files = listed.map((v) => v.split("/").pop());
  check(listed.length === Number(process.env.EXPECT_MODELS), `${process.env.EXPECT_MODELS} models should be listed, the list has ${listed.join(", ")}`);
  check(new Set(files).size === files.length, `a model file is listed twice: ${listed.join(", ")}`);
}

const square = (page, n) => page.locator(`[data-square="${n}"]`);
const moveCount = (page) => page.locator("#moves .move").count();

async function waitMoves(page, count) {
  await page.waitForFunction((n) => document.querySelectorAll("#moves .move").length === n, count, { timeout: WAIT });
}

const scenarios = {
  // The first screen, without a click: a board, the strongest model as the engine.
  async "first-screen"(page) {
    await checkFirstScreen(page);
    const message = await page.locator("#message").textContent();
    check(message.includes("strongest"), `the page should say why the engine was chosen, says ${message}`);
  },

  // The README's `serve --models models --runs models` on the shipped models: the first
  // screen plays the strongest of them; a move and its reply (docs/web-play.png).
  async "readme-command"(page) {
    await checkFirstScreen(page);
    await square(page, 22).click();
    await square(page, 18).click();
    await waitMoves(page, 2);
    await page.waitForFunction(() => document.querySelector("#status").textContent.includes("(you)"), null, { timeout: WAIT });
    const nps = await page.locator("#info-nps").textContent();
    check(/^[0-9][0-9,]*$/.test(nps), `the engine's nodes/s should be shown, is ${nps}`);
  },

  // Nodes per second while the engine thinks: a search deeper than it gets to (the
  // server's time cap is an hour) runs until Stop.
  async "nodes-per-second"(page) {
    await page.selectOption("#set-human", "both");
    await page.selectOption("#set-level-kind", "depth");
    await page.fill("#set-level", "30");
    await page.click("#btn-apply");
    await page.waitForFunction(() => !document.querySelector("#btn-go").disabled, null, { timeout: WAIT });
    await page.click("#btn-go");
    await page.waitForFunction(
      () => document.querySelector("#thinking").classList.contains("active")
        && /^[0-9][0-9,]*$/.test(document.querySelector("#info-nps").textContent)
        && /^[0-9][0-9,]*$/.test(document.querySelector("#info-nodes").textContent),
      null,
      { timeout: WAIT },
    );
    await page.click("#btn-stop");
    await waitMoves(page, 1);
    await page.waitForFunction(() => !document.querySelector("#thinking").classList.contains("active"), null, { timeout: WAIT });
    const nps = await page.locator("#info-nps").textContent();
    check(/^[0-9][0-9,]*$/.test(nps), `the finished search's nodes/s should stay shown, is ${nps}`);
  },

  // A draughts move by clicks, then the engine's reply.
  async "draughts-move"(page) {
    await newGame(page);
    await square(page, 22).click();
    const targets = await page.locator(".sq-dark.target").count();
    check(targets === 2, `the man on 22 should show 2 targets, shows ${targets}`);
    await square(page, 18).click();
    await waitMoves(page, 2);
    const first = await page.locator("#moves .move").first().textContent();
    check(first === "22-18", `the first move should be 22-18, is ${first}`);
    await page.waitForFunction(() => document.querySelector("#status").textContent.includes("(you)"), null, { timeout: WAIT });
    const depth = await page.locator("#info-depth").textContent();
    check(depth !== "–", "the engine's search should be shown");
  },

  // Clicks the rules forbid are refused with the reason; the game does not change.
  async "draughts-illegal"(page) {
    await newGame(page);
    await square(page, 15).click();
    await page.waitForFunction(() => document.querySelector("#message").textContent.includes("empty"), null, { timeout: WAIT });
    await square(page, 9).click();
    await page.waitForFunction(() => document.querySelector("#message").textContent.includes("piece"), null, { timeout: WAIT });
    await square(page, 22).click();
    await square(page, 13).click();
    await page.waitForFunction(() => document.querySelector("#message").textContent.includes("not a legal move"), null, { timeout: WAIT });
    check((await moveCount(page)) === 0, "a refused click must not play a move");
    // A capture is compulsory.
    await newGame(page, { human: "both", position: "W:W27,32:B23,14,1" });
    await square(page, 32).click();
    await page.waitForFunction(() => document.querySelector("#message").textContent.includes("capture is compulsory"), null, { timeout: WAIT });
    check((await moveCount(page)) === 0, "a refused click must not play a move");
  },

  // A capture of two pieces entered by clicking its landing squares.
  async "draughts-multicapture"(page) {
    await newGame(page, { human: "both", position: "W:W27:B23,14,1" });
    await square(page, 27).click();
    await square(page, 18).click();
    const targets = await page.locator(".sq-dark.target").count();
    check(targets === 1, `after the first jump one landing square should be offered, ${targets} are`);
    await square(page, 9).click();
    await waitMoves(page, 1);
    const text = await page.locator("#moves .move").first().textContent();
    check(text === "27x9", `the capture should be 27x9, is ${text}`);
    const fen = await page.locator("#position").textContent();
    check(fen === process.env.EXPECT_FEN, `position ${fen}, expected ${process.env.EXPECT_FEN}`);
  },

  // Two captures from 13 to 30 take different pieces: clicking the end square offers
  // both, and clicking a piece only one of them takes chooses it.
  async "draughts-choose"(page) {
    await newGame(page, { human: "both", position: "W:WK13:B7,9,10,26" });
    await square(page, 13).click();
    await square(page, 30).click();
    await page.waitForFunction(() => document.querySelectorAll("#chooser button").length === 2, null, { timeout: WAIT });
    const marked = await page.locator(".captured-mark").count();
    check(marked === 4, `the pieces either capture takes (7, 9, 10, 26) should be marked, ${marked} are`);
    await square(page, 10).click();
    await waitMoves(page, 1);
    const text = await page.locator("#moves .move").first().textContent();
    check(text === "13x6x30", `the capture taking 10 is 13x6x30, the page played ${text}`);
  },

  // Undo takes back the person's move and the engine's reply.
  async "draughts-undo"(page) {
    await newGame(page);
    await square(page, 23).click();
    await square(page, 19).click();
    await waitMoves(page, 2);
    await page.waitForFunction(() => !document.querySelector("#btn-undo").disabled, null, { timeout: WAIT });
    await page.click("#btn-undo");
    await waitMoves(page, 0);
    const fen = await page.locator("#position").textContent();
    check(fen === process.env.EXPECT_FEN, `after undo the position is ${fen}, expected the start ${process.env.EXPECT_FEN}`);
  },

  // A Kalah compound move: pit 1 ends in the store, so the turn goes on; pit 2 ends it.
  async "kalah-compound"(page) {
    await newGame(page, { game: "kalah", human: "both" });
    await page.locator('[data-pit="0:1"]').click();
    await page.waitForFunction(() => document.querySelector("#message").textContent.includes("sow again"), null, { timeout: WAIT });
    const store = await page.locator('[data-store-count="0"]').textContent();
    check(store === "1", `after pit 1 A's store should hold 1 stone, holds ${store}`);
    await page.locator('[data-pit="0:2"]').click();
    await waitMoves(page, 1);
    const text = await page.locator("#moves .move").first().textContent();
    check(text === "1,2", `the move should be 1,2, is ${text}`);
    // The sowings are shown one by one; the board ends in the position after the move.
    await page.waitForFunction(
      (fen) => document.querySelector("#position").textContent === fen
        && document.querySelector('[data-store-count="0"]').textContent === "2",
      process.env.EXPECT_FEN,
      { timeout: WAIT },
    );
  },

  // The training page's curve gains a point when train writes a metrics line.
  async "runs-live"(page) {
    await page.goto(`${base}/#runs/demo`);
    await page.waitForFunction(() => document.querySelectorAll("#run-curve circle").length === 2, null, { timeout: WAIT });
    const line = JSON.stringify({
      iteration: 3, games: 300, positions: 30000, loss_before: 0.02, loss: 0.015,
      eval_games: 100, score: 0.6, elo: 70.4, elo_low: 20.1, elo_high: 121.9,
      elapsed_s: 30.0, detail: "appended by the browser test",
    });
    fs.appendFileSync(path.join(runs, "demo.metrics.jsonl"), line + "\n");
    await page.waitForFunction(() => document.querySelectorAll("#run-curve circle").length === 3, null, { timeout: WAIT });
    const iteration = await page.locator("#run-iteration").textContent();
    check(iteration === "3 of 5", `the page should say iteration 3 of 5, says ${iteration}`);
  },

  // A PDN file from the runs folder replayed to its last position.
  async "replay-pdn"(page) {
    await page.goto(`${base}/#replay`);
    await page.waitForFunction(() => document.querySelectorAll("#replay-files option").length > 1, null, { timeout: WAIT });
    await page.selectOption("#replay-files", "games/sample.pdn");
    await page.waitForFunction(() => document.querySelectorAll("#replay-moves li").length > 0, null, { timeout: WAIT });
    await page.click("#rp-last");
    const fen = await page.locator("#replay-position").textContent();
    check(fen === process.env.EXPECT_FEN, `the last position is ${fen}, expected ${process.env.EXPECT_FEN}`);
    await page.click("#rp-prev");
    const earlier = await page.locator("#replay-position").textContent();
    check(earlier !== fen, "one move back should show another position");
    await page.click("#rp-last");
  },
};

async function main() {
  const run = scenarios[scenario];
  if (!run) {
    console.error(`unknown scenario ${scenario}; known: ${Object.keys(scenarios).join(", ")}`);
    process.exit(2);
  }
  // A fresh profile each run (playwright passes it as --user-data-dir).
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "evalearn-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
    viewport: { width: 1000, height: 860 },
    timeout: WAIT,
  });
  let failed = null;
  const page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(WAIT);
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  try {
    await page.goto(base);
    await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: WAIT });
    await run(page);
    check(errors.length === 0, `the page threw: ${errors.join("; ")}`);
  } catch (e) {
    failed = e;
  }
  fs.mkdirSync(shots, { recursive: true });
  const shot = path.join(shots, `${scenario}${failed ? "-failed" : ""}.png`);
  await page.screenshot({ path: shot }).catch(() => {});
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
  if (failed) {
    console.error(`FAILED ${scenario}: ${failed.message}\nscreenshot: ${shot}`);
    process.exit(1);
  }
  console.log(`ok ${scenario} (screenshot ${shot})`);
}

main().catch((e) => {
  console.error(`FAILED ${scenario}: ${e.stack || e}`);
  process.exit(1);
});
