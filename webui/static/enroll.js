/* Teach cribcam your deck: an enrolment session (shots from a file or the browser's camera), the
   grid of corner crops to confirm or correct with the 52-card picker, the tune with progress and
   cancel, and the deck profiles (use, rename, re-tune, delete). All state lives on the server. */
"use strict";
const $ = (id) => document.getElementById(id);
const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const SUIT_LETTER = { "♣": "C", "♦": "D", "♥": "H", "♠": "S", "♧": "C", "♢": "D", "♡": "H", "♤": "S" };
const POLL_MS = 1000;
let session = null;   // the enrolment session as the server last answered it
let fixing = null;    // the candidate the picker dialog corrects
let tuneState = null; // the last tune state seen, to refresh the decks when it ends
let pollTimer = null;
let stream = null;    // the browser camera's stream while it is on

function percent(value) {
  return typeof value === "number" ? `${Math.round(value * 1000) / 10}%` : "n/a";
}

/* One API call; `body` is JSON, or a Blob sent as an image. */
async function call(method, path, body) {
  $("error").textContent = "";
  const options = { method };
  if (body instanceof Blob) {
    options.headers = { "Content-Type": body.type || "image/jpeg" };
    options.body = body;
  } else if (body !== undefined) {
    options.headers = { "Content-Type": "application/json" };
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    $("error").textContent = `The server cannot be reached: ${error}`;
    return { ok: false, status: 0, answer: {} };
  }
  const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  return { ok: response.ok, status: response.status, answer };
}

async function api(method, path, body) {
  const { ok, status, answer } = await call(method, path, body);
  if (!ok) $("error").textContent = answer.error || `HTTP ${status}`;
  return ok ? answer : null;
}

// -- decks --------------------------------------------------------------------------------------
async function loadDecks() {
  const answer = await api("GET", "/api/decks");
  if (answer) renderDecks(answer);
}

function deckLine(deck) {
  if (!deck.tuned) return `not tuned yet · ${deck.cards} cards saved`;
  let text = `tuned · held-out corners read ${percent(deck.accuracy_before)} → ${percent(deck.accuracy_after)}`;
  if (deck.kept_base) text += " · uses the base reader (the tune read clearly worse)";
  if (deck.ink === "light") text += " · printed light on dark";
  text += ` · ${deck.cards} cards`;
  if (deck.corrections) text += ` · ${deck.corrections} game correction${deck.corrections === 1 ? "" : "s"}`;
  if (deck.needs_tune) text += " · tune again to use the new cards";
  return text;
}

function renderDecks(state) {
  $("in-use").textContent = state.active
    ? `Reading with the deck “${state.active}”.` : "Reading with the base model (no deck chosen).";
  $("use-base").disabled = !state.active;
  $("tune-unavailable").textContent = state.tuning ? "" : `Tuning is unavailable here: ${state.tuning_unavailable}`;
  const busy = state.tune.state === "running" || state.tune.state === "cancelling";
  const items = state.decks.map((deck) => el("li", { "data-deck": deck.name },
    el("div", { class: "deck-name" }, el("b", {}, deck.name),
      deck.active ? el("span", { class: "tag" }, "in use") : ""),
    el("div", { class: "muted" }, deckLine(deck)),
    el("div", { class: "deck-actions" },
      button("Use", () => useDeck(deck.name), { disabled: deck.active || !deck.tuned,
        title: deck.tuned ? "read the cards with this deck's reader" : "tune it first" }),
      button("Rename", () => renameDeck(deck.name)),
      button("Tune again", () => retune(deck.name), { disabled: busy || !state.tuning || !deck.crops }),
      button("Delete", () => deleteDeck(deck.name)))));
  $("decks").replaceChildren(...(items.length ? items : [el("li", { class: "muted" }, "No decks yet.")]));
  renderTune(state.tune);
}

function button(text, onclick, { disabled = false, title = "", primary = false } = {}) {
  const node = el("button", { type: "button", onclick }, text);
  node.disabled = disabled;
  if (title) node.title = title;
  if (primary) node.className = "primary";
  return node;
}

async function useDeck(name) {
  const answer = await api("POST", "/api/decks/use", { name });
  if (answer) renderDecks(answer);
}

async function renameDeck(name) {
  const given = prompt(`Rename the deck “${name}” to:`, name);
  if (given === null || given.trim() === name) return;
  const answer = await api("PATCH", `/api/decks/${encodeURIComponent(name)}`, { name: given.trim() });
  if (answer) renderDecks(answer);
}

async function deleteDeck(name) {
  if (!confirm(`Delete the deck “${name}”, its saved cards and its tuned reader?`)) return;
  const answer = await api("DELETE", `/api/decks/${encodeURIComponent(name)}`);
  if (answer) renderDecks(answer);
}

async function retune(name) {
  const answer = await api("POST", `/api/decks/${encodeURIComponent(name)}/tune`);
  if (answer) { renderTune(answer.tune); loadDecks(); }
}

$("use-base").addEventListener("click", () => useDeck(null));

// -- the tune -----------------------------------------------------------------------------------
function renderTune(tune) {
  const running = tune.state === "running" || tune.state === "cancelling";
  $("tune-panel").hidden = tune.state === "idle";
  $("tune-deck").textContent = tune.deck ? `“${tune.deck}”` : "";
  $("tune-progress").value = tune.fraction || 0;
  $("tune-progress").hidden = !running && tune.state !== "done";
  const seconds = typeof tune.seconds === "number" ? ` · ${Math.round(tune.seconds)} s` : "";
  $("tune-text").textContent = running
    ? `${tune.text} (${Math.round((tune.fraction || 0) * 100)}%)${seconds}` : `${tune.text}${seconds}`;
  $("tune-cancel").hidden = !running;
  $("tune-cancel").disabled = tune.state === "cancelling";
  let result = "";
  if (tune.state === "done") {
    result = tune.held_out
      ? `Held-out corners (${tune.held_out} × 8 angles) read right: base reader ${percent(tune.accuracy_before)} → tuned ${percent(tune.accuracy_after)}.`
      : "Tuned (no corner was held back to measure it).";
    if (tune.kept_base) result += " The tuned reader read them clearly worse, so this deck keeps the base reader; its cards stay saved for a later tune.";
  } else if (tune.state === "failed") {
    result = `The tune failed: ${tune.error}. The deck's previous reader is kept.`;
  }
  $("tune-result").textContent = result;
  $("tune-result").className = "tune-result" + (tune.state === "failed" ? " error" : "");
  const ended = tuneState !== null && tuneState !== tune.state && !running;
  tuneState = tune.state;
  clearTimeout(pollTimer);
  if (running) pollTimer = setTimeout(pollTune, POLL_MS);
  if (ended) loadDecks();
}

async function pollTune() {
  const answer = await api("GET", "/api/tune");
  if (answer) renderTune(answer);
  else pollTimer = setTimeout(pollTune, POLL_MS * 3);
}

$("tune-cancel").addEventListener("click", async () => {
  const answer = await api("POST", "/api/tune/cancel");
  if (answer) renderTune(answer);
});

// -- starting an enrolment ----------------------------------------------------------------------
function suitsOf(text) {
  return [...text.toUpperCase()].map((c) => SUIT_LETTER[c] || c).filter((c) => "CDHS".includes(c));
}

$("mode").addEventListener("change", () => { $("suits-label").hidden = $("mode").value !== "suits"; });

$("start-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const body = { name: String(form.get("name") || "").trim(), mode: form.get("mode") };
  if (body.mode === "suits") body.suits = suitsOf(String(form.get("suits") || ""));
  const answer = await api("POST", "/api/enroll", body);
  if (!answer) return;
  session = answer;
  $("shoot-panel").hidden = false;
  $("check-panel").hidden = false;
  $("finish-status").textContent = answer.replaces
    ? `A deck named “${answer.name}” exists: saving replaces its cards (its tuned reader stays until the new tune succeeds).`
    : "";
  renderSession();
  $("shoot-panel").scrollIntoView({ behavior: "smooth", block: "start" });
});

// -- shots --------------------------------------------------------------------------------------
function suitLabel(suit) { return `${SUIT_SYMBOL[suit]} ${SUIT_NAME[suit]}`; }

function renderShotPrompt() {
  const next = session.next_suit;
  const number = session.shots.length + 1;
  let title;
  let help;
  if (session.mode === "any") {
    title = `Photo ${number}: any arrangement`;
    help = "Lay out as many cards as fit, face up and apart; take photos until every card of the " +
      "deck has been in one, each card once.";
  } else if (next) {
    title = `Photo ${number}: the ${suitLabel(next)}, A to K`;
    help = `Lay the ${SUIT_NAME[next]} out A, 2, 3 … K in rows, left to right and top to bottom, ` +
      "face up and apart on a darker cloth, then take the photo from above.";
  } else {
    title = "Every suit is photographed";
    help = "Check the cards below, or retake a photo.";
  }
  $("shot-title").textContent = title;
  $("shot-help").textContent = help;
  const full = session.mode === "suits" && !next;
  $("shot-file-button").disabled = full;
  $("camera-shoot").disabled = full;
}

function renderShots() {
  $("shots").replaceChildren(...session.shots.map((shot) => el("li", {},
    `Photo ${shot.shot}${shot.suit ? ` (${suitLabel(shot.suit)})` : ""}: ${shot.cards} card${shot.cards === 1 ? "" : "s"} `,
    button("Retake", () => dropShot(shot.shot)))));
}

async function sendShot(blob) {
  const suit = session.next_suit;
  $("shot-status").textContent = "Finding the cards…";
  const { ok, status, answer } = await call("POST", `/api/enroll/${session.id}/shots`, blob);
  if (!ok) {
    $("shot-status").textContent = answer.error || `the photo was refused (${status})`;
    if (status === 404) $("error").textContent = answer.error;
    return;
  }
  session = answer;
  const found = answer.added.cards;
  $("shot-status").textContent = `Found ${found} card${found === 1 ? "" : "s"}` +
    (suit ? ` of the ${SUIT_NAME[suit]}.` : ".");
  renderSession();
}

async function dropShot(number) {
  const answer = await api("DELETE", `/api/enroll/${session.id}/shots/${number}`);
  if (answer) { session = answer; renderSession(); }
}

$("shot-file-button").addEventListener("click", () => $("shot-file").click());
$("shot-file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  event.target.value = "";
  if (file) await sendShot(file);
});

/* The browser's camera, as in camera.js: getUserMedia, one frame drawn on a canvas, a JPEG. */
$("camera-start").addEventListener("click", async () => {
  if (stream) { stopCamera(); return; }
  if (!window.isSecureContext) {
    $("shot-status").textContent = "This browser only allows the camera on a secure page (HTTPS): " +
      "start the server with `cribcam serve --lan` and open the https:// address it prints, or " +
      "choose a photo instead.";
    return;
  }
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    $("shot-status").textContent = "This browser has no camera access: choose a photo instead.";
    return;
  }
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: "environment", width: { ideal: 1920 }, height: { ideal: 1080 } },
      audio: false,
    });
  } catch (error) {
    $("shot-status").textContent = `The camera was refused (${error.name}): allow it in the ` +
      "browser's site settings, or choose a photo instead.";
    return;
  }
  const video = $("camera-video");
  video.srcObject = stream;
  video.hidden = false;
  await video.play();
  $("camera-shoot").hidden = false;
  $("camera-start").textContent = "Stop the camera";
});

function stopCamera() {
  if (stream) for (const track of stream.getTracks()) track.stop();
  stream = null;
  $("camera-video").srcObject = null;
  $("camera-video").hidden = true;
  $("camera-shoot").hidden = true;
  $("camera-start").textContent = "Use the camera";
}

$("camera-shoot").addEventListener("click", async () => {
  const video = $("camera-video");
  if (!video.videoWidth) return;
  const canvas = document.createElement("canvas");
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext("2d").drawImage(video, 0, 0);
  const blob = await new Promise((ok) => canvas.toBlob(ok, "image/jpeg", 0.92));
  $("camera-shoot").disabled = true;
  try { await sendShot(blob); } finally { renderShotPrompt(); }
});

// -- the crop grid ------------------------------------------------------------------------------
function renderSession() {
  renderShotPrompt();
  renderShots();
  renderProblems();
  renderGrid();
  $("finish").disabled = !session.ready;
  $("save-only").disabled = !session.ready;
}

function chips(cards) { return cards.flatMap((c) => [cardChip(c), " "]); }

function renderProblems() {
  const out = [];
  const dup = Object.entries(session.duplicates);
  for (const [card, numbers] of dup) {
    out.push(el("div", { class: "flag over" }, cardChip(card),
      ` appears ${numbers.length} times: cards ${numbers.map((n) => `#${n}`).join(", ")}. Tap the wrong one to correct it.`));
  }
  if (session.missing.length && session.candidates.length) {
    const label = session.mode === "any" ? `Not seen yet (${session.missing.length}): ` : "Missing: ";
    out.push(el("div", { class: "flag short" }, label, ...chips(session.missing)));
  }
  if (session.flagged) {
    out.push(el("div", { class: "flag short" },
      `${session.flagged} card${session.flagged === 1 ? "" : "s"} to check (marked).`));
  } else if (session.candidates.length && !dup.length) {
    out.push(el("div", { class: "flag exact" }, `${session.cards} cards ready.`));
  }
  $("problems").replaceChildren(...out);
}

function renderGrid() {
  const duplicated = new Set(Object.values(session.duplicates).flat());
  $("grid").replaceChildren(...session.candidates.map((c) => {
    const classes = ["tile"];
    if (c.flagged) classes.push("flagged");
    if (c.confirmed) classes.push("confirmed");
    if (c.not_card) classes.push("not-card");
    if (duplicated.has(c.number)) classes.push("duplicate");
    const label = c.card
      ? el("span", { class: "label" + (isRed(c.card) ? " red" : "") }, cardLabel(c.card))
      : el("span", { class: "label" }, "not a card");
    const why = c.flagged
      ? el("span", { class: "why" }, c.disagree ? `model ${cardLabel(c.model)}?` : "unsure") : "";
    const tile = el("button", { type: "button", class: classes.join(" "), "data-number": String(c.number),
      "aria-label": `card ${c.number}: ${c.card || "not a card"}${c.flagged ? ", to check" : ""}` },
      el("img", { src: c.crop, alt: "", loading: "lazy", width: "96", height: "96" }),
      el("span", { class: "num" }, `#${c.number}`), label, why);
    tile.addEventListener("click", () => openFix(c));
    return el("li", {}, tile);
  }));
}

// -- correcting one card ------------------------------------------------------------------------
const picker = new CardPicker($("picker"), (chosen) => { $("fix-ok").disabled = chosen.length !== 1; });

function openFix(candidate) {
  fixing = candidate;
  const parts = [`Card #${candidate.number}: `];
  if (candidate.layout) parts.push(`the layout says ${cardLabel(candidate.layout)}, `);
  parts.push(`the model reads ${cardLabel(candidate.model)} (${Math.round(candidate.confidence * 100)}%). What is it?`);
  $("fix-prompt").textContent = parts.join("");
  $("fix-img").src = candidate.crop;
  picker.reset(1, []);
  if (candidate.card) picker.toggle(candidate.card);
  $("fix-dialog").showModal();
}

async function sendFix(card) {
  const number = fixing.number;
  $("fix-dialog").close();
  const answer = await api("PUT", `/api/enroll/${session.id}/cards/${number}`, { card });
  if (answer) { session = answer; renderSession(); }
}

$("fix-ok").addEventListener("click", () => sendFix(picker.chosen[0]));
$("fix-not").addEventListener("click", () => sendFix(null));
$("fix-cancel").addEventListener("click", () => $("fix-dialog").close());

// -- finishing ----------------------------------------------------------------------------------
async function finish(tune) {
  $("finish").disabled = true;
  $("save-only").disabled = true;
  const { ok, status, answer } = await call("POST", `/api/enroll/${session.id}/finish`,
    { tune, use: $("finish-use").checked });
  $("finish").disabled = !session.ready;
  $("save-only").disabled = !session.ready;
  if (answer.deck) {
    $("finish-status").textContent = `Saved ${answer.deck.cards} cards in the deck “${answer.deck.name}”.` +
      (status === 202 ? " Tuning…" : "");
  }
  if (!ok) {
    $("error").textContent = answer.error || `HTTP ${status}`;
    if (answer.deck) loadDecks();
    return;
  }
  if (answer.tune) renderTune(answer.tune);
  loadDecks();
  $("tune-panel").scrollIntoView({ behavior: "smooth", block: "start" });
}

$("finish").addEventListener("click", () => finish(true));
$("save-only").addEventListener("click", () => finish(false));

loadDecks();
