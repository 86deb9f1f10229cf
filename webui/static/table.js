/* Table mode: the camera follows the deal and the players only confirm. The server reads each
   frame, applies what it is sure of (offered here for a moment to undo or correct) and asks
   about the rest; this page shows the table, the score and the count in large type, the one
   open question with its likeliest answers as big buttons, and says each count aloud. */
"use strict";
const root = document.getElementById("table-mode");
const GAME = root.dataset.game;
const SERVER_CAMERA = root.dataset.serverCamera === "on";
const $ = (id) => document.getElementById(id);
const TABLE_FRAME_MS = 100;  // table mode reads what changed, as often as the server keeps up
const UNDO_MS = 8000;  // how long a step the camera applied offers Undo and "Wrong card?"
const CLAIM_MAX = 29;  // the most a hand can score
const TROUBLE_MS = 1500;  // what the camera cannot place is said once it lasts: not one frame's slip
const TROUBLE_GONE_MS = 1000;  // ...and unsaid once unseen this long (not a hand passing over it)
let state = null;
let mode = { question: null, last: null };
let correcting = false;  // the "Wrong card?" choices are open
let unread = null;  // { key, card }: the crib card the players named, before their count
let spoken = null;  // the shows already on the page (only new ones are spoken)
let speaking = localStorage.getItem("cribcam-speak") === "on";

/* Every tap on the page's controls, for the players' (and the tests') count of effort. */
let taps = 0;
document.addEventListener("click", (event) => {
  if (event.target.closest("button, a")) root.dataset.taps = String(++taps);
}, true);

function seatName(seat) { return state.names[seat] || t("Seat {number}", { number: seat + 1 }); }
function tableWords(text) {
  return cardsInText(text).replace(/\bseat (\d)\b/g, (whole, n) =>
    state && Number(n) < state.names.length ? seatName(Number(n)) : whole);
}
function sides() {
  if (state.settings.players !== 4) return state.names.map((name, seat) => ({ name, seats: [seat] }));
  return [0, 1].map((s) => ({ name: `${state.names[s]} & ${state.names[s + 2]}`, seats: [s, s + 2] }));
}

function showError(text) { $("error").textContent = tableWords(text); }

async function api(method, path, body) {
  showError("");
  let response;
  try {
    response = await fetch(path, { method, headers: { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    showError(t("The server cannot be reached: {error}", { error: String(error) }));
    return null;
  }
  const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) { showError(answer.error || `HTTP ${response.status}`); return null; }
  return answer;
}

/* An answer that changed the game carries the new state and table mode's status. */
async function post(path, body) {
  const answer = await api("POST", path, body);
  if (!answer) return;
  if (answer.table_mode) mode = answer.table_mode;
  else if ("question" in answer) mode = answer;
  correcting = false;
  unread = null;
  if (answer.phase) render(answer);
  else renderPrompt();
}

// -- the picture ---------------------------------------------------------------------------
const tableLabel = (det) => cardLabel(det.card);  // the players know where their cards lie
/* The card names on the picture, in CSS pixels for a picture `shown` px wide on the screen:
   large enough to read from across the table, never larger than a card there. */
const tableLabelPx = (shown) => Math.min(44, Math.max(22, shown / 14));

/* `picture` (the page camera's): the frame's size in pixels (`width`, `height`), where its
   cards' boxes lie; the server camera's view says its own (showServerCamera). */
function followCamera(answer, picture) {
  if (answer.table_mode) {
    const before = JSON.stringify({ ...mode, camera_check: null });
    mode = answer.table_mode;
    if (JSON.stringify({ ...mode, camera_check: null }) !== before) renderPrompt();
    renderCheck();
  }
  if (answer.table && picture) {
    followTroubles(answer.table, picture.width, picture.height);
    if (answer.table.learnt) renderSeatMarks(answer.table.learnt, picture.width, picture.height);
  }
}

// -- the seats the camera learnt -----------------------------------------------------------
let seatsKey = "";
let seatPicture = [0, 0];  // the frame the marks were placed in: width, height
/* Each player's name where the camera learnt they sit (picture pixels in a `width` × `height`
   frame), over the picture; a tap on one asks who sits there instead (two players: they swap). */
function renderSeatMarks(learnt, width, height) {
  const key = JSON.stringify([learnt.map((m) => [m.seat, Math.round(m.at[0] / 8), Math.round(m.at[1] / 8), m.fixed]),
    width, height, state && state.names]);
  if (key === seatsKey || !width || !height || !state) return;
  seatsKey = key;
  seatPicture = [width, height];
  const box = $("seat-marks");
  const chooser = box.querySelector(".seat-chooser");
  box.replaceChildren(...learnt.map((m) => {
    const x = Math.min(Math.max(m.at[0] / width, 0.06), 0.94);  // a name stays inside the picture
    const y = Math.min(Math.max(m.at[1] / height, 0.06), 0.94);
    const mark = el("button", { type: "button", class: "seat-mark", "data-seat": String(m.seat),
      "data-fixed": String(m.fixed), title: t("Not here? Tap to say who sits here.") }, seatName(m.seat));
    mark.style.left = `${(x * 100).toFixed(1)}%`;
    mark.style.top = `${(y * 100).toFixed(1)}%`;
    mark.addEventListener("click", () => chooseSeat(m.seat));
    return mark;
  }), ...(chooser ? [chooser] : []));
}

/* Who sits where the camera put `seat`: the other players as buttons (two players swap at once). */
function chooseSeat(seat) {
  const box = $("seat-marks");
  box.querySelector(".seat-chooser")?.remove();
  const others = state.names.map((_, i) => i).filter((i) => i !== seat);
  if (others.length === 1) { fixSeat(seat, others[0]); return; }
  const options = el("div", { class: "options" }, ...others.map((player) =>
    bigButton(seatName(player), () => fixSeat(seat, player))));
  options.append(bigButton(t("Cancel"), () => chooser.remove()));
  const chooser = el("div", { class: "seat-chooser", role: "dialog" },
    el("p", { class: "ask" }, t("Who sits where the camera put {name}?", { name: seatName(seat) })), options);
  box.append(chooser);
}

async function fixSeat(seat, player) {
  $("seat-marks").querySelector(".seat-chooser")?.remove();
  const answer = await api("POST", `/api/games/${GAME}/table/seats`, { seat, player });
  if (answer && answer.learnt) { seatsKey = ""; renderSeatMarks(answer.learnt, ...seatPicture); }
}

function startBrowserCamera() {
  const unavailable = () => { $("camera-start").hidden = false; $("demo-photo").hidden = false; };
  const camera = new Camera(GAME, $("camera-video"), $("overlay"), $("camera-status"), followCamera, unavailable);
  camera.interval = TABLE_FRAME_MS;
  camera.label = tableLabel;
  camera.labelPx = tableLabelPx;
  camera.query = "?table=1";
  camera.onStop = () => { $("camera-start").hidden = false; };
  camera.onStart = () => {
    $("demo-photo").hidden = true;
    $("demo-img").hidden = true;
    $("camera-video").hidden = false;
    offerTeaching($("teach-slot"), root.dataset.deck);  // beside the picture, never over it
  };
  $("camera-start").addEventListener("click", async () => {
    $("camera-start").hidden = true;
    await camera.start();
  });
  $("demo-photo").addEventListener("click", showDemo);
  camera.available().then((has) => {
    if (has) { $("camera-start").hidden = true; camera.start(); }
    else {
      $("camera-status").textContent = t("No camera found on this device: start one, try the demo photo, or play on the form.");
      $("demo-photo").hidden = false;
    }
  });
}

/* The demo photo read as the camera would read it: the cards named on it, the game left as it
   is (the frame is not posted for table mode: nothing of it is applied). Its buttons go, so that
   nothing covers the cards; a camera plugged in later starts on a reload. */
async function showDemo() {
  $("demo-photo").hidden = true;
  $("camera-start").hidden = true;
  $("camera-video").hidden = true;
  await tryDemoPhoto(GAME, $("demo-img"), $("overlay"), (text) => { $("camera-status").textContent = text; },
    tableLabel, tableLabelPx);
}

function showServerCamera(view) {
  const status = $("camera-status");
  if (!view.enabled) { status.textContent = view.detail; return; }
  if (view.table_mode) followCamera(view);
  status.textContent = view.watching === false
    ? t("The server camera follows another game: reload to follow this one.")
    : t("Server camera: {state}.", { state: view.state }) + ` ${view.detail || ""}`;
  if (view.frame) {
    const img = $("server-img");
    img.hidden = false;
    const cards = view.table ? overlayCards(view.table.cards) : [];
    img.onload = () => drawBoxes($("overlay"), view.frame.size[0], view.frame.size[1], cards,
      tableLabel, tableLabelPx);
    img.src = `/api/camera/frame.jpg?r=${view.revision}`;
    if (view.table) {
      followTroubles({ ...view.table, seats: serverSeats(view) }, ...view.frame.size);
      renderSeatMarks(view.table.learnt || [], ...view.frame.size);
    }
  }
}

/* The server camera's seats as the page camera's table gives them: each edge's game seat. */
function serverSeats(view) {
  return Object.fromEntries((view.seats || []).map((s) => [s.edge, s.seat]));
}

// -- the camera check before the first deal ------------------------------------------------
/* Before the first deal the server checks each frame (`camera_check`): can the camera read the
   table, and if not, what to change. Said in large type; gone once a deal has started. */
function renderCheck() {
  const box = $("camera-check");
  const check = mode.camera_check;
  const shown = Boolean(check && state && state.deal === 0 && !state.outcome);
  root.classList.toggle("checking", shown);
  box.hidden = !shown;
  if (!shown) { box.replaceChildren(); return; }
  const advice = check.findings.map(checkText);
  const key = JSON.stringify([check.ready, advice]);
  if (box.dataset.key !== key) {  // unchanged advice is not said again to a screen reader
    box.dataset.key = key;
    box.dataset.ready = String(check.ready);
    const title = check.ready ? "✓ " + t("Ready: the camera reads the table.") : t("Camera check: not ready yet");
    box.replaceChildren(el("p", { class: "check-title" }, title),
      ...advice.map((text) => el("p", { class: "check-advice" }, text)),
      el("p", { class: "check-measures" }));
  }
  box.querySelector(".check-measures").textContent = checkMeasures(check);
}

/* What a finding asks the players to change, from its code and measured values. */
function checkText(finding) {
  const f = finding;
  switch (f.code) {
    case "no_cards": return t("Lay a card face up in front of each player, as for the cut: the camera reads no card yet.");
    case "few_cards": return t("The camera reads {cards} of {players} cards: lay one face up in front of each player. If they lie there, the others are out of the picture or too small: move the camera back or higher.",
      { cards: num(f.cards), players: num(f.players) });
    case "too_far": return t("Move the camera about {cm} cm closer: the farthest card's corners are only {share} of the size the camera reads surely ({px} of {good} px).",
      { cm: num(f.closer_cm), share: pct(f.ratio), px: num(Math.round(f.index_px)), good: num(f.good_px) });
    case "far": return t("Closer reads surer: move the camera about {cm} cm closer (the farthest card's corners are {px} px tall; {good} px read surely).",
      { cm: num(f.closer_cm), px: num(Math.round(f.index_px)), good: num(f.good_px) });
    case "cut_off_left": return t("The table runs out of the picture on the left: turn the camera a little to the left, or move it back.");
    case "cut_off_right": return t("The table runs out of the picture on the right: turn the camera a little to the right, or move it back.");
    case "cut_off_top": return t("The table runs out of the picture at the top: tilt the camera up a little, or move it back.");
    case "cut_off_bottom": return t("The table runs out of the picture at the bottom: tilt the camera down a little, or move it back.");
    case "blurred": return t("The picture is blurred: hold the camera still and let it focus; wipe the lens.");
    case "too_dark": return t("Too dark: turn on more light over the table.");
    case "too_bright": return t("Too bright: the light shines back off the cards. Move the lamp or the camera.");
    default: return f.code;
  }
}

/* The figures the advice comes from, in small type under it. */
function checkMeasures(check) {
  const m = check.measures;
  const parts = [];
  if (m.index_px !== null) parts.push(t("corners {px} px (reads from {least}, surely from {good})",
    { px: num(Math.round(m.index_px)), least: num(check.least_index_px), good: num(check.good_index_px) }));
  if (m.blur_px !== null) parts.push(t("blur {px} px", { px: num(m.blur_px, 1) }));
  parts.push(t("light {value} of 255", { value: num(Math.round(m.paper === null ? m.brightness : m.paper)) }));
  return parts.join(" · ");
}

// -- what the camera cannot place ----------------------------------------------------------
/* Each group of cards the camera cannot place (the table's `undecided`) said in large type
   with what to do, once it has lasted TROUBLE_MS; by key: { since, seen, text } (ms). */
const troubles = new Map();

/* Follow the camera's table, its boxes in a picture `width` × `height`. */
function followTroubles(table, width, height, now = performance.now()) {
  for (const group of table.undecided || []) {
    const key = [group.code, group.edges, group.zone, group.cards].join(" ");
    const known = troubles.get(key);
    troubles.set(key, { since: known ? known.since : now, seen: now, text: troubleText(group, table, width, height) });
  }
  for (const [key, trouble] of troubles) if (now - trouble.seen > TROUBLE_GONE_MS) troubles.delete(key);
  const lasting = [...troubles.values()].filter((trouble) => now - trouble.since >= TROUBLE_MS);
  renderTroubles([...new Set(lasting.map((trouble) => trouble.text))]);
}

function renderTroubles(texts) {
  const box = $("trouble");
  if (box.textContent === texts.join("")) return;  // unchanged: a screen reader says it once
  box.replaceChildren(...texts.map((text) => el("p", {}, text)));
  box.hidden = !texts.length;
  root.classList.toggle("troubled", texts.length > 0);
}

/* What the camera does not understand about a group and what to do, from its codes. */
function troubleText(group, table, width, height) {
  const n = group.cards.length;
  const cards = group.cards.map(cardLabel).join(" ");
  const where = whereOnPicture(group.cards, table, width, height);
  const [name, other] = group.edges.map((edge) => edgePlayer(table, edge));
  switch (group.code) {
    case "no seat": return tn("{cards} {where} is not in front of any player: move it in front of a player.",
      "{cards} {where} are not in front of any player: move them in front of a player.", n, { cards, where });
    case "between seats": return tn("{cards} {where} lies between {name} and {other}: move it in front of one of them.",
      "{cards} {where} lie between {name} and {other}: move them in front of one of them.", n, { cards, where, name, other });
    case "centre": return t("{cards} lie together in the middle, where only the starter goes: move them in front of their players.", { cards });
    case "lone cards": return t("{n} single cards lie in the middle, where only the starter goes: move the others in front of their players.", { n: group.count });
    case "too many": return t("{n} cards lie together in front of {name}: keep the played cards apart from the hand.", { n: group.count, name });
    case "groups": return group.zone === "hand"
      ? t("{name}'s hand lies in {n} separate groups: keep it together.", { name, n: group.count })
      : t("{name}'s played cards lie in {n} separate groups: lay them in one row.", { name, n: group.count });
    case "crib no dealer": return t("{cards} beside {name} may be the crib, but no one deals yet: choose who deals.", { cards, name });
    case "cribs": return t("{n} groups of 4 cards lie beside the dealer: only the crib goes there.", { n: group.count });
    case "two cribs": return t("{cards} lies as a crib beside {name} and beside {other}: keep the crib beside the dealer only.", { cards, name, other });
    default: return tableWords(group.reason);
  }
}

/* The player at a picture's edge (the table's `seats`: each edge's game seat), or the edge. */
function edgePlayer(table, edge) {
  const seat = (table.seats || {})[edge];
  return seat === undefined || seat === null || !state ? edgeName(edge) : seatName(seat);
}

/* Where `cards` lie in the picture, in a third of it each way: "at the left of the picture". */
function whereOnPicture(cards, table, width, height) {
  const boxes = table.cards.filter((c) => cards.includes(c.card)).map((c) => c.box);
  if (!boxes.length || !width || !height) return "";
  const third = (centre, size) => Math.min(2, Math.max(0, Math.floor((3 * centre) / size)));
  const x = third(boxes.reduce((sum, b) => sum + b[0] + b[2], 0) / 2 / boxes.length, width);
  const y = third(boxes.reduce((sum, b) => sum + b[1] + b[3], 0) / 2 / boxes.length, height);
  return [
    [() => t("at the top left of the picture"), () => t("at the top of the picture"), () => t("at the top right of the picture")],
    [() => t("at the left of the picture"), () => t("in the middle of the picture"), () => t("at the right of the picture")],
    [() => t("at the bottom left of the picture"), () => t("at the bottom of the picture"), () => t("at the bottom right of the picture")],
  ][y][x]();
}

// -- the score and the count ---------------------------------------------------------------
const showKey = (show) => `${show.deal} ${show.what} ${show.seat}`;
/* This deal's shows in counting order (the state lists the newest deal first). */

function render(next) {
  state = next;
  const fresh = state.shows.filter((s) => spoken !== null && !spoken.has(showKey(s)));
  if (speaking) for (const show of fresh) speakShow(show);
  spoken = new Set(state.shows.map(showKey));
  renderScores();
  renderNow();
  renderPrompt();
  renderCheck();
}

function renderScores() {
  const turn = state.turn;
  $("scoreline").replaceChildren(...sides().map((side, i) => el("div", {
    class: "side" + (side.seats.includes(turn) ? " turn" : ""), "data-side": String(i) },
    el("span", { class: "name" }, side.name + (side.seats.includes(state.dealer) ? ` · ${t("crib")}` : "")),
    el("b", { class: "points" }, num(state.scores[i])))));
}

function dealEvents() { return state.events.filter((e) => e.deal === state.deal); }

function renderNow() {
  $("count").textContent = num(state.count);
  const phase = state.phase;
  let turn = "";
  if (state.turn !== null) turn = t("{name} to play", { name: seatName(state.turn) });
  else if (phase === "show" && state.next_show) turn = t("{whose} to count", { whose: showOf(seatName(state.next_show.seat), state.next_show.what) });
  else if (phase === "deal" || phase === "discard" || phase === "starter") turn = state.dealer === null ? "" : t("{name} deals", { name: seatName(state.dealer) });
  $("turn").textContent = turn;
  const last = dealEvents().filter((e) => e.kind !== "hand" && e.kind !== "crib").at(-1);
  $("last").textContent = last ? lastLine(last) : "";
}

function lastLine(event) {
  const who = event.seat === null ? "" : `${seatName(event.seat)}: `;
  const points = event.points ? ` +${num(event.points)}` : "";
  if (event.kind !== "play") return `${who}${eventName(event.kind)} ${event.cards.map(cardLabel).join(" ")}${points}`;
  const items = event.items.length ? ` (${event.items.map(itemText).join(", ")})` : "";
  return `${who}${event.cards.map(cardLabel).join(" ")}${points}${items}`;
}

/* The kinds of score the last line names, in the page's language. */
function eventName(kind) {
  switch (kind) {
    case "three for last": return tc("event", "three for last");
    case "his heels": return tc("event", "his heels");
    case "go": return tc("event", "go");
    case "go point": return tc("event", "go point");
    case "last card": return tc("event", "last card");
    case "muggins": return tc("event", "muggins");
    case "penalty": return tc("event", "penalty");
    case "correction": return tc("event", "correction");
    default: return kind;
  }
}

// -- the prompt: one thing at a time --------------------------------------------------------
/* What a proposal reads, built from its codes (the API's `text` is English): its kind, seat
   and the steps of `option` (the go's before a card, the card). */
function proposalText(proposal, option) {
  const card = (option && option.cards[0]) || (proposal.doubt_args || {}).card;
  const name = proposal.seat === null ? "" : seatName(proposal.seat);
  if (proposal.kind === "starter") return t("starter {card}", { card: cardLabel(card) });
  if (proposal.kind === "show") return t("{name}'s hand", { name });
  if (proposal.kind === "crib") {
    const cards = option && option.cards.length ? ` ${option.cards.map(cardLabel).join(" ")}` : "";
    return t("{name}'s crib", { name }) + cards;
  }
  const goes = option ? option.actions.filter((a) => a.kind === "go") : [];
  const said = goes.map((a) => t("{name} said go", { name: seatName(a.seat) }));
  return [...said, t("{name} played {card}", { name, card: cardLabel(card) })].join(", ");
}

/* Why a proposal is asked about, from its code. */
function doubtText(proposal) {
  const args = proposal.doubt_args || {};
  switch (proposal.doubt_code) {
    case "declined": return t("changed by a player");
    case "not next": return t("{name} is not next: it is {turn}'s turn", { name: seatName(args.seat), turn: seatName(proposal.seat) });
    case "impossible": return t("{card} cannot be there: it is already placed or breaks the rules", { card: cardLabel(args.card) });
    case "misread": return t("read as {card}, which cannot be there", { card: cardLabel(args.card) });
    case "unsure": return t("not surely read");
    case "not a crib": return t("these cards cannot be the crib");
    case "crib unsure": return t("a crib card is not surely read");
    case "crib card unseen": return t("a crib card is not seen");
    default: return tableWords(proposal.doubt);
  }
}
function renderPrompt() {
  if (!state) return;
  const box = $("prompt");
  box.replaceChildren();
  if (state.outcome) return box.append(gameOver());
  if (mode.question) return box.append(question(mode.question));
  const last = mode.last;
  if (last && last.revision === state.revision && Date.now() - last.at * 1000 < UNDO_MS) {
    box.append(applied(last));
    setTimeout(renderPrompt, UNDO_MS);  // the offer goes away by itself
    return;
  }
  if (state.phase === "cut for deal") return box.append(chooseDealer());
  const shows = lastDealShows();
  if (shows.length) box.append(showCard(shows.at(-1)), dealSummary(shows));
  box.append(el("p", { class: "hint" }, hint()));
}

function hint() {
  switch (state.phase) {
    case "deal": case "discard": case "starter":
      return t("Deal, lay the crib aside face down, and turn the starter face up on the pack.");
    case "play": return t("Lay each card in your row, in front of you.");
    case "show": return state.next_show && state.next_show.what === "crib"
      ? t("{name}: turn the crib face up beside you.", { name: seatName(state.dealer) }) : t("Counting the hands…");
    default: return "";
  }
}

function bigButton(label, onclick, cls = "") {
  return el("button", { type: "button", class: `big ${cls}`.trim(), onclick }, label);
}

/* A big button naming cards: "5♥ 5♣" to see, "5 of hearts, 5 of clubs" to a screen reader. */
function cardButton(cards, onclick) {
  const button = bigButton(cardsLabel(cards), onclick, "card-answer");
  button.setAttribute("aria-label", cards.map(cardName).join(", "));
  return button;
}

function cardsLabel(cards) {
  const span = el("span", { class: "cards" });
  for (const card of cards) span.append(cardChip(card));
  return span;
}

function question(q) {
  const node = el("div", { class: "question", "data-key": q.key });
  const partial = q.partial || [];  // a crib's cards read when one is not
  const named = unread && unread.key === q.key ? [unread.card] : [];
  const read = q.options[0] || (partial.length ? { cards: [...partial, ...named], actions: [] } : undefined);
  node.append(el("p", { class: "ask" }, proposalText(q, read) + (q.claim ? "" : "?")));
  if (q.doubt) node.append(el("p", { class: "doubt" }, doubtText(q)));
  const key = q.key;
  if (partial.length && !named.length) return unreadCard(q, node);
  if (q.claim) {
    node.append(el("p", { class: "ask-claim" }, t("{name}: how many do you count?", { name: seatName(q.seat) })));
    const pad = el("div", { class: "pad" });
    const cards = named.length ? { cards: read.cards } : {};
    for (let n = 0; n <= CLAIM_MAX; n++) {
      pad.append(bigButton(num(n), () => post(`/api/games/${GAME}/table/answer`, { key, ...cards, claim: n }), "pad-key"));
    }
    node.append(pad);
    return node;
  }
  const options = el("div", { class: "options" });
  for (const option of q.options) {
    options.append(cardButton(option.cards, () => post(`/api/games/${GAME}/table/answer`, { key, cards: option.cards })));
  }
  const form = el("a", { href: `/games/${GAME}` }, t("form"));
  if (!q.options.length && (q.kind === "show" || q.kind === "crib")) node.append(el("p", {}, ...tx("Enter it on the {form}.", { form })));
  options.append(bigButton(t("Not a card"), () => post(`/api/games/${GAME}/table/dismiss`, { key })));
  node.append(options);
  if (q.kind === "play" || q.kind === "starter") {  // misread, or a card the camera missed: one tap
    const other = q.kind === "play" ? t("Another card by {name}:", { name: seatName(q.seat) }) : t("Another card:");
    node.append(el("p", { class: "ask-other" }, other));
    node.append(pickerOf([], (card) => post(`/api/games/${GAME}/table/answer`, { key, cards: [card] })));
  }
  return node;
}

/* Any other card, one tap: those placed this deal (and `also`) are left out. */
function pickerOf(also, onTap) {
  const grid = el("div", { class: "picker compact", "aria-label": t("another card") });
  new CardPicker(grid, (chosen, card) => { if (card) onTap(card); })
    .reset(1, [...state.seen, ...also], { hide: true });
  return grid;
}

/* A crib with a card never read: one tap names it (in muggins, the count follows). */
function unreadCard(q, node) {
  const key = q.key;
  node.append(el("p", { class: "ask-unread" }, t("Which card is not seen?")));
  node.append(pickerOf(q.partial, (card) => {
    if (q.claim) { unread = { key, card }; renderPrompt(); return; }
    post(`/api/games/${GAME}/table/answer`, { key, cards: [...q.partial, card] });
  }));
  const form = el("a", { href: `/games/${GAME}` }, t("the form"));
  node.append(el("div", { class: "options" },
    bigButton(t("Not a card"), () => post(`/api/games/${GAME}/table/dismiss`, { key }))),
  el("p", {}, ...tx("Another card: {form}.", { form })));
  return node;
}

function applied(last) {
  const node = el("div", { class: "applied", "data-key": last.key });
  node.append(el("p", { class: "done" }, "✓ " + proposalText(last, last.applied)));
  const row = el("div", { class: "options" });
  const undo = () => post(`/api/games/${GAME}/table/undo`, { key: last.key });
  row.append(bigButton(t("Undo"), undo));
  const others = last.options.filter((o) => o.cards.join() !== last.applied.cards.join());
  if (last.kind === "play" || last.kind === "starter" || last.kind === "crib") {
    row.append(bigButton(t("Wrong card?"), () => { correcting = true; renderPrompt(); }));
  }
  node.append(row);
  if (correcting) {
    const fix = (cards) => post(`/api/games/${GAME}/table/undo`, { key: last.key, cards });
    const fixes = el("div", { class: "options" });
    for (const option of others) fixes.append(cardButton(option.cards, () => fix(option.cards)));
    node.append(fixes);
    if (last.kind === "crib") {
      const form = el("a", { href: `/games/${GAME}` }, t("the form"));
      node.append(el("p", {}, ...tx("Another card: {form}.", { form })));
    } else {
      node.append(pickerOf([], (card) => fix([card])));
    }
  }
  const shows = lastDealShows();
  if (shows.length && last.kind === "crib") node.append(showCard(shows.at(-1)), dealSummary(shows));
  return node;
}

function chooseDealer() {
  const node = el("div", { class: "question" }, el("p", { class: "ask" }, t("Who deals first?")));
  const options = el("div", { class: "options" });
  state.names.forEach((name, seat) => options.append(bigButton(name,
    () => post(`/api/games/${GAME}/actions`, { kind: "dealer", seat }), "primary")));
  node.append(options);
  return node;
}

function showCard(show) {
  const whose = showOf(seatName(show.seat), show.what);
  return el("div", { class: "show", "data-what": show.what, "data-total": String(show.total) },
    el("p", { class: "show-title" }, whose, " ", cardsLabel(show.hand), " + ", cardChip(show.starter)),
    el("p", { class: "show-total" }, el("b", {}, num(show.total)),
      show.spoken ? ` “${show.spoken}”` : ` ${t("nineteen (nothing)")}`),
    el("ul", { class: "items" }, ...show.items.map((i) => el("li", {}, `${itemName(i.name)} ${cardsInText(i.cards.join(" "))} · ${num(i.points)}`))));
}

/* The shows of the deal in play, or of the one just ended until the next starter. */
function lastDealShows() {
  const newest = state.shows.length ? state.shows[0].deal : null;
  const ended = state.phase === "deal" && newest === state.deal;
  return newest !== null && (newest === state.deal || ended) ? state.shows.filter((s) => s.deal === newest) : [];
}

function dealSummary(shows) {
  return el("p", { class: "summary" }, shows.map((s) => `${showOf(seatName(s.seat), s.what)} ${num(s.total)}`).join(" · "));
}

function gameOver() {
  const [winner] = sides().filter((_, i) => i === state.outcome.winner);
  return el("div", { class: "question" },
    el("p", { class: "ask" }, t("{name} wins {scores}", { name: winner.name, scores: state.scores.map(num).join("–") })),
    el("p", {}, el("a", { href: "/" }, t("All games")), " · ", el("a", { href: `/games/${GAME}` }, t("the whole game"))));
}

// -- the voice -----------------------------------------------------------------------------
function speakShow(show) {
  if (!("speechSynthesis" in window)) return;
  const words = `${showOf(seatName(show.seat), show.what)}: ${show.spoken || t("nineteen")}`;
  const utterance = new SpeechSynthesisUtterance(words);
  utterance.lang = LANG;  // a Danish count in a Danish voice
  speechSynthesis.speak(utterance);
}
function renderSpeak() {
  $("speak").setAttribute("aria-pressed", String(speaking));
  $("speak").textContent = speaking ? t("Voice on") : t("Voice off");
}
$("speak").addEventListener("click", () => {
  speaking = !speaking;
  localStorage.setItem("cribcam-speak", speaking ? "on" : "off");
  renderSpeak();
});

function connect() {
  const source = new EventSource(`/api/games/${GAME}/events`);
  source.addEventListener("open", () => $("live").classList.add("on"));
  source.addEventListener("state", (event) => { $("live").classList.add("on"); render(JSON.parse(event.data)); });
  source.addEventListener("camera", (event) => showServerCamera(JSON.parse(event.data)));
  source.addEventListener("error", () => $("live").classList.remove("on"));
}

(async () => {
  renderSpeak();
  const first = await api("GET", `/api/games/${GAME}`);
  if (first) render(first);
  const status = await api("GET", `/api/games/${GAME}/table`);
  if (status) { mode = status; renderPrompt(); renderCheck(); }
  if (SERVER_CAMERA) {
    $("camera-start").hidden = true;
    $("camera-video").hidden = true;
    const view = await api("POST", `/api/games/${GAME}/camera?table=1`);
    if (view) showServerCamera(view);
  } else startBrowserCamera();
  connect();
})();
