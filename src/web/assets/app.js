// evalearn's page: play either game against the engine, watch training runs, replay game
// files. Everything it knows comes from the JSON API under /api/ (docs/web.md); the legal
// moves are the engine's own, sent with every state.
"use strict";

const $ = (id) => document.getElementById(id);
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

async function api(method, path, body, raw) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.body = raw ? body : JSON.stringify(body);
    if (!raw) options.headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (e) {
    return { ok: false, status: 0, data: { error: `the server cannot be reached (${e.message})` } };
  }
  let data = null;
  const text = await response.text();
  try { data = text ? JSON.parse(text) : null; } catch { data = { error: text }; }
  return { ok: response.ok, status: response.status, data };
}

let info = null;

// The squares of the draughts board (numbers and places), as the server's game list
// gives them.
function draughtsSquares() {
  const game = info.games.find((g) => g.layout && g.layout.squares);
  return game ? game.layout.squares : [];
}

// ---------------------------------------------------------------- pages

function showPage() {
  const hash = location.hash || "#play";
  const [page, arg] = hash.slice(1).split("/");
  for (const name of ["play", "runs", "replay"]) {
    $(`page-${name}`).hidden = name !== page;
    $(`nav-${name}`).classList.toggle("active", name === page);
  }
  if (page === "runs") Runs.open(arg ? decodeURIComponent(arg) : null);
  if (page === "replay") Replay.open();
}

// ---------------------------------------------------------------- play

const Play = (() => {
  let state = null;       // the game's state as the server sent it last
  let events = null;      // its event stream
  let flipped = false;
  let selection = null;   // draughts: {from, path: [landing squares clicked]}
  let choice = null;      // draughts: moves sharing both ends, to choose by captured pieces
  let partial = null;     // Kalah: a turn that goes on {text, board, legal}
  let goAskedAt = -1;     // the version for which the engine was asked to move
  let noticeSeen = 0;
  let animation = null;   // Kalah: the sowings of the last move being shown
  let models = [];
  let defaults = {};      // each game's first engine ({model} or {eval}) and why
  let startGame = null;   // the game of the first screen
  let asked = 0;          // new games asked for: only the latest one's reply is shown

  const humanPlays = (side) => state && (state.human === "both" || state.human === side);
  const sideName = (side) => state.names[side === "first" ? 0 : 1];

  function say(text, ok) {
    $("message").textContent = text || "";
    $("message").classList.toggle("ok", !!ok);
  }

  async function loadModels() {
    const reply = await api("GET", "/api/models");
    models = reply.ok ? reply.data.models : [];
    defaults = reply.ok ? reply.data.defaults : {};
    startGame = reply.ok ? reply.data.start_game : null;
    fillEngines();
  }

  // The engine list's value of a model, by any of its names (a file in both folders is
  // listed once, under one of them).
  function modelValue(path) {
    const m = models.find((m) => m.path === path || m.also.includes(path));
    return m ? `model:${m.path}` : null;
  }

  function modelLabel(m) {
    const facts = [m.kind, `revision ${m.revision}`];
    if (m.elo !== null) {
      const elo = Math.round(m.elo);
      facts.push(`Elo ${elo > 0 ? "+" : ""}${elo}`);
    }
    if (m.live) facts.push("training now");
    return `${m.path} (${facts.join(", ")})`;
  }

  // Fills the engine list of the chosen game and selects `preferred`, else the game's
  // first engine as the server chose it (docs/web.md).
  function fillEngines(preferred) {
    const game = $("set-game").value;
    const select = $("set-engine");
    const spec = info.games.find((g) => g.name === game);
    select.replaceChildren();
    for (const name of spec.builtins) {
      select.add(new Option(`built-in: ${name}`, `eval:${name}`));
    }
    for (const m of models.filter((m) => m.game.split(":")[0] === game)) {
      select.add(new Option(modelLabel(m), `model:${m.path}`));
    }
    const first = defaults[game];
    let wanted = preferred;
    if (preferred && preferred.startsWith("model:")) wanted = modelValue(preferred.slice(6));
    if (!preferred && first) wanted = first.model ? modelValue(first.model) : `eval:${first.eval}`;
    if (wanted && [...select.options].some((o) => o.value === wanted)) select.value = wanted;
    select.title = first ? `first choice: ${first.why}` : "";
  }

  function levelFromForm() {
    const value = Number($("set-level").value);
    return { [$("set-level-kind").value]: value };
  }

  // Starts a game with the form's settings; true when it is shown.
  async function newGame() {
    const ticket = ++asked;
    const request = {
      game: $("set-game").value,
      human: $("set-human").value,
      level: levelFromForm(),
    };
    const engine = $("set-engine").value;
    if (engine.startsWith("model:")) request.model = engine.slice(6);
    else if (engine.startsWith("eval:")) request.eval = engine.slice(5);
    const position = $("set-position").value.trim();
    if (position) request.position = position;
    const reply = await api("POST", "/api/games", request);
    if (ticket !== asked) {
      // A later New game overtook this one (the first screen's, say): drop it.
      if (reply.ok) api("DELETE", `/api/games/${reply.data.id}`);
      return false;
    }
    if (!reply.ok) {
      say(reply.data.error);
      return false;
    }
    if (state) api("DELETE", `/api/games/${state.id}`);
    flipped = request.human === "second";
    start(reply.data);
    return true;
  }

  // The first screen: a new game with the form's settings, on the game of a run being
  // trained (else the first game), against that game's first engine.
  async function openFirst() {
    const games = [...$("set-game").options].map((o) => o.value);
    if (games.includes(startGame)) $("set-game").value = startGame;
    fillEngines();
    const first = defaults[$("set-game").value];
    if (await newGame()) {
      if (first) say(`Engine: ${first.why}.`, true);
    } else if (!state) {
      $("status").textContent = "No game yet: choose the settings and press New game.";
    }
  }

  function start(first) {
    state = null;
    selection = null;
    choice = null;
    partial = null;
    goAskedAt = -1;
    noticeSeen = 0;
    if (events) events.close();
    say("");
    $("notice").textContent = "";
    document.body.dataset.game = first.id;
    receive(first);
    events = new EventSource(`/api/games/${first.id}/events`);
    events.addEventListener("state", (e) => receive(JSON.parse(e.data)));
  }

  function receive(next) {
    if (state && (next.id !== state.id || next.version <= state.version)) return;
    const before = state;
    state = next;
    if (!before || next.moves.length !== before.moves.length || next.position !== before.position) {
      selection = null;
      choice = null;
      partial = null;
    }
    for (const notice of next.notices) {
      if (notice.n > noticeSeen) {
        noticeSeen = notice.n;
        $("notice").textContent = notice.text;
      }
    }
    const newMove = before && next.moves.length === before.moves.length + 1;
    if (next.game === "kalah" && newMove && next.last_move && next.last_move.steps.length > 1) {
      animate(next.last_move.steps);
    } else {
      render();
    }
    askEngine();
  }

  // A compound Kalah move, sowing by sowing.
  function animate(steps) {
    if (animation) clearTimeout(animation.timer);
    animation = { steps, at: 0, timer: null };
    const step = () => {
      if (!animation) return;
      if (animation.at >= animation.steps.length) {
        animation = null;
        render();
        return;
      }
      render();
      animation.at += 1;
      animation.timer = setTimeout(step, 450);
    };
    step();
  }

  function askEngine() {
    if (!state || state.thinking || state.status.over) return;
    if (humanPlays(state.to_move)) return;
    if (goAskedAt === state.version) return;
    goAskedAt = state.version;
    api("POST", `/api/games/${state.id}/go`, {}).then((reply) => {
      if (!reply.ok && reply.status !== 409) say(reply.data.error);
    });
  }

  function render() {
    if (!state) return;
    if (state.game === "kalah") renderKalah();
    else renderDraughts();
    const status = state.status.over
      ? `Game over: ${state.status.result}`
      : partial
        ? `${capital(sideName(state.to_move))} sows again`
        : `${capital(sideName(state.to_move))} to move` + (humanPlays(state.to_move) ? " (you)" : " (engine)");
    $("status").textContent = status;
    $("position").textContent = partial ? partial.position : state.position;
    // One line a round: the first side's move, then the second's.
    const list = $("moves");
    list.replaceChildren();
    let item = null;
    for (const mv of state.moves) {
      if (!item || mv.side === "first") {
        item = document.createElement("li");
        list.appendChild(item);
        if (mv.side === "second") item.append("… ");
      } else {
        item.append(" ");
      }
      const span = document.createElement("span");
      span.className = "move";
      span.textContent = mv.text;
      item.appendChild(span);
    }
    list.scrollTop = list.scrollHeight;
    renderThinking();
    $("btn-download").href = `/api/games/${state.id}/record`;
    $("btn-undo").disabled = state.thinking || state.moves.length === 0;
    $("btn-hint").disabled = state.thinking || state.status.over;
    $("btn-go").disabled = state.thinking || state.status.over;
  }

  function renderThinking() {
    const box = $("thinking");
    box.classList.toggle("active", state.thinking);
    $("engine-label").textContent = state.thinking
      ? `${state.engine.label}: thinking${state.search.purpose === "hint" ? " (hint)" : ""}…`
      : state.engine.label;
    $("btn-stop").disabled = !state.thinking;
    const shown = state.thinking ? state.search.info : state.hint || state.last_search;
    $("info-depth").textContent = shown ? shown.depth : "–";
    $("info-score").textContent = shown ? shown.score_text : "–";
    $("info-nodes").textContent = shown ? shown.nodes.toLocaleString("en") : "–";
    const nps = shown ? shown.nps : null;
    $("info-nps").textContent = nps === null || nps === undefined ? "–" : nps.toLocaleString("en");
    $("info-pv").textContent = shown ? (shown.pv || []).join(" ") : "–";
    if (!state.thinking && state.hint) {
      say(`hint: ${state.hint.move} (${state.hint.score_text})`, true);
    }
  }

  // ------------------------------------------------ draughts

  function renderDraughts() {
    const marks = { last: [], targets: [], path: [], captured: [] };
    if (state.last_move) marks.last = [state.last_move.from, state.last_move.to];
    if (selection) {
      marks.selected = selection.from;
      marks.path = selection.path;
      marks.targets = nextSquares();
    }
    if (choice) marks.captured = [...new Set(choice.flatMap((m) => m.captured))];
    Boards.draughts($("board"), {
      squares: draughtsSquares(),
      pieces: state.board.pieces,
      flipped,
      marks,
      onClick: clickSquare,
    });
    const chooser = $("chooser");
    chooser.hidden = !choice;
    if (choice) {
      chooser.replaceChildren(document.createTextNode(
        `${choice.length} captures go from ${choice[0].from} to ${choice[0].to}: pick the pieces to take (or click one on the board).`));
      for (const mv of choice) {
        const button = document.createElement("button");
        button.textContent = `take ${mv.captured.join(", ")}`;
        button.dataset.move = mv.text;
        button.addEventListener("click", () => send(mv.text));
        chooser.appendChild(button);
      }
    }
  }

  const pieceAt = (n) => state.board.pieces[n - 1];
  const ownPiece = (n) => {
    const p = pieceAt(n);
    return p && (p.toLowerCase() === "w") === (state.to_move === "first");
  };
  const movesFrom = (n) => state.legal.filter((m) => m.from === n);
  const startsWith = (path, prefix) => prefix.every((sq, i) => path[i] === sq);

  // The legal moves (with their matching paths) that go on from the squares clicked.
  function candidates() {
    return movesFrom(selection.from)
      .map((m) => ({ move: m, paths: m.paths.filter((p) => startsWith(p, selection.path)) }))
      .filter((c) => c.paths.length > 0);
  }

  function nextSquares() {
    const next = new Set();
    for (const c of candidates()) {
      for (const p of c.paths) if (p.length > selection.path.length) next.add(p[selection.path.length]);
    }
    return [...next];
  }

  function refuse(text) {
    say(text);
  }

  function clickSquare(n) {
    if (animation || !state) return;
    if (state.status.over) return refuse("the game is over: undo or start a new game");
    if (state.thinking) return refuse("the engine is thinking: wait, or press Stop");
    if (!humanPlays(state.to_move)) return refuse(`it is the engine's move (${sideName(state.to_move)})`);
    if (choice) {
      const narrowed = choice.filter((m) => m.captured.includes(n));
      if (narrowed.length > 0 && narrowed.length < choice.length) {
        if (narrowed.length === 1) return send(narrowed[0].text);
        choice = narrowed;
        return render();
      }
      return refuse("click one of the marked pieces, or a button, to choose the capture");
    }
    if (!selection) return select(n);
    if (n === selection.from && selection.path.length === 0) {
      selection = null;
      say("");
      return render();
    }
    const next = nextSquares();
    if (next.includes(n)) {
      selection.path.push(n);
      const left = candidates();
      const complete = left.filter((c) => c.paths.some((p) => p.length === selection.path.length));
      if (complete.length === left.length) return finish(complete.map((c) => c.move));
      say("");
      return render();
    }
    const ending = candidates().map((c) => c.move).filter((m) => m.to === n);
    if (ending.length > 0) return finish(ending);
    if (selection.path.length === 0 && ownPiece(n)) return select(n);
    const legal = movesFrom(selection.from).map((m) => m.text).join(", ");
    refuse(`${n} is not a legal move of the piece on ${selection.from}: its moves are ${legal}`);
  }

  function select(n) {
    const piece = pieceAt(n);
    if (!piece) return refuse(`square ${n} is empty: click one of your pieces`);
    if (!ownPiece(n)) return refuse(`that is a ${sideName(state.to_move === "first" ? "second" : "first")} piece: ${sideName(state.to_move)} is to move`);
    if (movesFrom(n).length === 0) {
      const captures = state.legal.filter((m) => m.captured.length > 0);
      if (captures.length > 0) {
        return refuse(`a capture is compulsory (the one taking the most pieces): ${captures.map((m) => m.text).join(", ")}`);
      }
      return refuse(`the piece on ${n} has no legal move`);
    }
    selection = { from: n, path: [] };
    say("");
    render();
  }

  function finish(moves) {
    const unique = [...new Map(moves.map((m) => [m.text, m])).values()];
    if (unique.length === 1) return send(unique[0].text);
    selection = null;
    choice = unique;
    render();
  }

  // ------------------------------------------------ Kalah

  function renderKalah() {
    let board = partial ? partial.board : state.board;
    let sown = null;
    if (animation) {
      const step = animation.steps[animation.at];
      board = step.board;
      sown = { side: step.side === "first" ? 0 : 1, pit: step.pit };
    }
    const side = state.to_move === "first" ? 0 : 1;
    const legal = partial ? partial.legal : state.legal;
    const playable = !animation && !state.thinking && humanPlays(state.to_move) && !state.status.over
      ? { side, pits: legal } : null;
    Boards.kalah($("board"), {
      board,
      names: state.names,
      flipped,
      playable,
      sown,
      onClick: clickPit,
    });
    $("chooser").hidden = true;
  }

  function clickPit(side, pit) {
    if (animation || !state) return;
    if (state.status.over) return refuse("the game is over: undo or start a new game");
    if (state.thinking) return refuse("the engine is thinking: wait, or press Stop");
    if (!humanPlays(state.to_move)) return refuse(`it is the engine's move (${sideName(state.to_move)})`);
    const mover = state.to_move === "first" ? 0 : 1;
    if (side !== mover) return refuse(`that pit is ${state.names[side]}'s: ${state.names[mover]} is to move`);
    const text = partial ? `${partial.text},${pit}` : String(pit);
    send(text);
  }

  // ------------------------------------------------ commands

  async function send(text) {
    const reply = await api("POST", `/api/games/${state.id}/move`, { move: text });
    if (!reply.ok) {
      selection = null;
      choice = null;
      render();
      return refuse(reply.data.error);
    }
    say("");
    if (reply.data.partial) {
      partial = reply.data.partial;
      render();
      say(`the turn goes on after ${partial.text}: sow again`, true);
      return;
    }
    receive(reply.data);
  }

  async function command(path, body) {
    if (!state) return say("start a game first");
    const reply = await api("POST", `/api/games/${state.id}/${path}`, body);
    if (!reply.ok) return say(reply.data.error);
    if (path === "undo") goAskedAt = -1;
    receive(reply.data);
    return reply;
  }

  async function init() {
    $("btn-new").addEventListener("click", newGame);
    $("set-game").addEventListener("change", () => fillEngines());
    $("btn-flip").addEventListener("click", () => { flipped = !flipped; render(); });
    $("btn-undo").addEventListener("click", () => {
      if (partial) { partial = null; render(); return say("turn started again", true); }
      command("undo");
    });
    $("btn-hint").addEventListener("click", () => { goAskedAt = state ? state.version : -1; command("go", { hint: true }); });
    $("btn-go").addEventListener("click", () => command("go", {}));
    $("btn-stop").addEventListener("click", () => command("stop"));
    $("btn-apply").addEventListener("click", () => command("settings", { level: levelFromForm(), human: $("set-human").value }));
    // A page left behind would hold one of the server's --max-games places until its
    // game is idle; one kept in the back-forward cache may come back to it.
    window.addEventListener("pagehide", (e) => {
      if (state && !e.persisted) fetch(`/api/games/${state.id}`, { method: "DELETE", keepalive: true });
    });
    await loadModels();
    await openFirst();
  }

  // Opens a game against `model` (from the runs page).
  async function against(model, game) {
    location.hash = "#play";
    await loadModels();
    $("set-game").value = game.split(":")[0];
    fillEngines(`model:${model}`);
    newGame();
  }

  return { init, against };
})();

// ---------------------------------------------------------------- training runs

const Runs = (() => {
  let current = null;   // {name, lines, iterations, model, game}
  let events = null;

  async function open(name) {
    const reply = await api("GET", "/api/runs");
    const body = $("runs-table").querySelector("tbody");
    body.replaceChildren();
    if (!reply.ok) {
      $("runs-note").textContent = reply.data.error;
      return;
    }
    $("runs-note").textContent = reply.data.runs.length === 0
      ? "No NAME.metrics.jsonl in the runs folder yet: start evalearn train with its model there."
      : "Click a run to follow it.";
    for (const run of reply.data.runs) {
      const row = document.createElement("tr");
      row.className = "run-row";
      row.dataset.run = run.name;
      const last = run.last;
      const elo = last && last.elo !== null ? `${last.elo.toFixed(0)}` : "–";
      const cells = [run.name, run.game || "–", last ? `${last.iteration} of ${run.iterations ?? "?"}` : "–", elo];
      for (const c of cells) {
        const td = document.createElement("td");
        td.textContent = c;
        row.appendChild(td);
      }
      const td = document.createElement("td");
      if (run.model) {
        const button = document.createElement("button");
        button.textContent = "Play";
        button.title = `Play against ${run.model}`;
        button.addEventListener("click", (e) => { e.stopPropagation(); Play.against(run.model, run.game); });
        td.appendChild(button);
      }
      row.appendChild(td);
      row.addEventListener("click", () => { location.hash = `#runs/${encodeURIComponent(run.name)}`; });
      body.appendChild(row);
    }
    if (name) show(name);
  }

  async function show(name) {
    for (const row of document.querySelectorAll(".run-row")) row.classList.toggle("current", row.dataset.run === name);
    const reply = await api("GET", `/api/runs/${encodeURIComponent(name)}`);
    if (!reply.ok) {
      $("runs-note").textContent = reply.data.error;
      return;
    }
    current = reply.data;
    $("run-detail").hidden = false;
    $("run-title").textContent = name;
    $("run-curve").innerHTML = current.curve_svg;
    $("btn-run-play").hidden = !current.model;
    $("btn-run-play").onclick = () => Play.against(current.model, current.game);
    draw();
    if (events) events.close();
    events = new EventSource(`/api/runs/${encodeURIComponent(name)}/events?from=${current.lines.length}`);
    events.addEventListener("line", (e) => {
      const data = JSON.parse(e.data);
      current.lines[data.n - 1] = data.line;
      current.lines.length = data.n;
      if (data.curve_svg) $("run-curve").innerHTML = data.curve_svg;
      draw();
      // The list's row follows too.
      const row = document.querySelector(`.run-row[data-run="${CSS.escape(name)}"]`);
      if (row) {
        row.cells[2].textContent = `${data.line.iteration} of ${current.iterations ?? "?"}`;
        if (data.line.elo !== null) row.cells[3].textContent = data.line.elo.toFixed(0);
      }
    });
    events.addEventListener("reset", () => show(name));
  }

  function duration(seconds) {
    if (!isFinite(seconds) || seconds < 0) return "–";
    const h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = Math.floor(seconds % 60);
    return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s} s` : `${s} s`;
  }

  function draw() {
    const lines = current.lines;
    const last = lines[lines.length - 1];
    const n = current.iterations;
    $("run-iteration").textContent = last ? `${last.iteration} of ${n ?? "?"}` : "–";
    $("run-games").textContent = last ? last.games.toLocaleString("en") : "–";
    const previous = lines.length > 1 ? lines[lines.length - 2] : { games: 0, elapsed_s: 0 };
    const speed = last && last.elapsed_s > previous.elapsed_s
      ? (last.games - previous.games) / (last.elapsed_s - previous.elapsed_s) : NaN;
    $("run-speed").textContent = isFinite(speed) ? speed.toFixed(1) : "–";
    const left = last && n ? (last.elapsed_s / last.iteration) * (n - last.iteration) : NaN;
    $("run-left").textContent = last && n && last.iteration >= n ? "finished" : duration(left);
    Boards.lines($("run-loss"), {
      title: "loss before and after each iteration's update",
      xLabel: "iteration",
      series: [
        { name: "before", colour: "#d08c2c", points: lines.map((l) => [l.iteration, l.loss_before]) },
        { name: "after", colour: "#1f5fa8", points: lines.map((l) => [l.iteration, l.loss]) },
      ],
    });
  }

  return { open };
})();

// ---------------------------------------------------------------- replay

const Replay = (() => {
  let data = null;   // the file's games as the server read them
  let game = 0;
  let ply = 0;
  let loaded = false;

  async function open() {
    if (loaded) return;
    loaded = true;
    const select = $("replay-files");
    const reply = await api("GET", "/api/files");
    if (reply.ok) {
      for (const f of reply.data.files) select.add(new Option(f.path, f.path));
    }
    select.addEventListener("change", async () => {
      if (!select.value) return;
      show(await api("GET", `/api/replay?path=${encodeURIComponent(select.value)}`));
    });
    $("replay-upload").addEventListener("change", async (e) => {
      const file = e.target.files[0];
      if (!file) return;
      const text = await file.text();
      show(await api("POST", `/api/replay?name=${encodeURIComponent(file.name)}`, text, true));
    });
    $("replay-game").addEventListener("change", (e) => { game = Number(e.target.value); ply = 0; render(); });
    $("rp-first").addEventListener("click", () => go(0));
    $("rp-prev").addEventListener("click", () => go(ply - 1));
    $("rp-next").addEventListener("click", () => go(ply + 1));
    $("rp-last").addEventListener("click", () => go(Infinity));
    document.addEventListener("keydown", (e) => {
      if ($("page-replay").hidden || !data) return;
      if (e.key === "ArrowLeft") go(ply - 1);
      if (e.key === "ArrowRight") go(ply + 1);
    });
  }

  function show(reply) {
    if (!reply.ok) {
      $("replay-message").textContent = reply.data.error;
      return;
    }
    $("replay-message").textContent = "";
    data = reply.data;
    game = 0;
    ply = 0;
    const select = $("replay-game");
    select.replaceChildren();
    data.games.forEach((g, i) => {
      const tag = (name) => (g.tags.find((t) => t[0] === name) || [null, "?"])[1];
      select.add(new Option(`${i + 1}: ${tag(capital(data.names[0]))} – ${tag(capital(data.names[1]))}`, i));
    });
    render();
  }

  function go(to) {
    if (!data) return;
    const last = data.games[game].positions.length - 1;
    ply = Math.max(0, Math.min(last, to));
    render();
  }

  function render() {
    const g = data.games[game];
    const at = g.positions[ply];
    if (data.game === "kalah") {
      const step = at.last_move && at.last_move.steps[at.last_move.steps.length - 1];
      Boards.kalah($("replay-board"), {
        board: at.board, names: data.names, flipped: false, playable: null,
        sown: step ? { side: step.side === "first" ? 0 : 1, pit: step.pit } : null,
      });
    } else {
      Boards.draughts($("replay-board"), {
        squares: draughtsSquares(), pieces: at.board.pieces, flipped: false,
        marks: { last: at.last_move ? [at.last_move.from, at.last_move.to] : [] },
      });
    }
    $("replay-position").textContent = at.position;
    $("rp-ply").textContent = `ply ${ply} of ${g.positions.length - 1}`;
    $("replay-tags").textContent = g.tags.map((t) => `${t[0]}: ${t[1]}`).join(" · ")
      + (g.result ? ` · result: ${g.result}` : "");
    const list = $("replay-moves");
    list.replaceChildren();
    g.positions.slice(1).forEach((p, i) => {
      const item = document.createElement("li");
      item.textContent = p.move;
      item.className = "clickable" + (i + 1 === ply ? " current" : "");
      item.addEventListener("click", () => go(i + 1));
      list.appendChild(item);
    });
  }

  return { open };
})();

// ---------------------------------------------------------------- start

(async () => {
  const reply = await api("GET", "/api/info");
  if (!reply.ok) {
    $("status").textContent = `cannot reach the server: ${reply.data.error}`;
    return;
  }
  info = reply.data;
  await Play.init();
  window.addEventListener("hashchange", showPage);
  showPage();
  document.body.dataset.ready = "true";
})();
