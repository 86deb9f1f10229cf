/* Teach cribcam your deck: an enrolment session (shots from a file or the browser's camera), the
   grid of corner crops to confirm or correct with the 52-card picker, the tune with progress and
   cancel, and the deck profiles (use, rename, re-tune, delete). All state lives on the server. */
"use strict";
const $ = (id) => document.getElementById(id);
const SUIT_NAME = { C: () => t("clubs"), D: () => t("diamonds"), H: () => t("hearts"), S: () => t("spades") };
const SUIT_LETTER = { "♣": "C", "♦": "D", "♥": "H", "♠": "S", "♧": "C", "♢": "D", "♡": "H", "♤": "S" };
const POLL_MS = 1000;
const SUGGESTED_PHOTOS = 4;  // ordinary photos of a deck: enough to read it clearly better
let session = null;   // the enrolment session as the server last answered it
let fixing = null;    // the candidate the picker dialog corrects
let tuneState = null; // the last tune state seen, to refresh the decks when it ends
let pollTimer = null;
let stream = null;    // the browser camera's stream while it is on
let tuning = { ok: true, code: null, why: "" };  // whether this server can tune (GET /api/decks)
const TRAIN_COMMAND = 'pip install -e ".[train]"';

function percent(value) {
  return typeof value === "number"
    ? new Intl.NumberFormat(LANG, { style: "percent", maximumFractionDigits: 1 }).format(value) : t("n/a");
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
    $("error").textContent = t("The server cannot be reached: {error}", { error: String(error) });
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
  if (!deck.tuned) return tn("not tuned yet · {n} card saved", "not tuned yet · {n} cards saved", deck.cards);
  let text = t("tuned · held-out corners read {before} → {after}", { before: percent(deck.accuracy_before), after: percent(deck.accuracy_after) });
  if (deck.kept_base) text += " · " + t("uses the base reader (the tune read clearly worse)");
  if (deck.ink === "light") text += " · " + t("printed light on dark");
  text += " · " + tn("{n} card", "{n} cards", deck.cards);
  if (deck.corrections) text += " · " + tn("{n} game correction", "{n} game corrections", deck.corrections);
  if (deck.needs_tune) text += " · " + t("tune again to use the new cards");
  return text;
}

function renderDecks(state) {
  $("in-use").textContent = state.active
    ? t("Reading with the deck “{name}”.", { name: state.active }) : t("Reading with the base model (no deck chosen).");
  $("use-base").disabled = !state.active;
  tuning = { ok: state.tuning, code: state.tuning_code, why: state.tuning_unavailable };
  $("tune-unavailable").replaceChildren(...(tuning.ok ? [] : tuningUnavailable()));
  if (session) renderFinish();
  const busy = state.tune.state === "running" || state.tune.state === "cancelling";
  const items = state.decks.map((deck) => el("li", { "data-deck": deck.name },
    el("div", { class: "deck-name" }, el("b", {}, deck.name),
      deck.active ? el("span", { class: "tag" }, t("in use")) : ""),
    el("div", { class: "muted" }, deckLine(deck)),
    el("div", { class: "deck-actions" },
      button(t("Use"), () => useDeck(deck.name), { disabled: deck.active || !deck.tuned,
        title: deck.tuned ? t("read the cards with this deck's reader") : t("tune it first") }),
      button(t("Rename"), () => renameDeck(deck.name)),
      button(t("Tune again"), () => retune(deck.name), { disabled: busy || !state.tuning || !deck.crops }),
      button(t("Delete"), () => deleteDeck(deck.name)))));
  $("decks").replaceChildren(...(items.length ? items : [el("li", { class: "muted" }, t("No decks yet."))]));
  renderTune(state.tune);
}

/* Why this server cannot tune (for el()), in the page's language where the API gives a code. */
function tuningUnavailable() {
  if (tuning.code === "no_train_extra") return tx("Tuning needs the train extra: {command}", { command: el("code", {}, TRAIN_COMMAND) });
  return [t("Tuning is unavailable here: {why}", { why: tuning.why })];
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
  const given = prompt(t("Rename the deck “{name}” to:", { name }), name);
  if (given === null || given.trim() === name) return;
  const answer = await api("PATCH", `/api/decks/${encodeURIComponent(name)}`, { name: given.trim() });
  if (answer) renderDecks(answer);
}

async function deleteDeck(name) {
  if (!confirm(t("Delete the deck “{name}”, its saved cards and its tuned reader?", { name }))) return;
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
  const seconds = typeof tune.seconds === "number" ? ` · ${num(Math.round(tune.seconds))} s` : "";
  $("tune-text").textContent = running
    ? `${tune.text} (${pct(tune.fraction || 0)})${seconds}` : `${tune.text}${seconds}`;
  $("tune-cancel").hidden = !running;
  $("tune-cancel").disabled = tune.state === "cancelling";
  let figure = "";
  let result = "";
  if (tune.state === "done") {
    // the figure the tune measured, in plain words: corners of the deck it never trained on
    const measured = tune.held_out && typeof tune.accuracy_before === "number" && typeof tune.accuracy_after === "number";
    if (measured) {
      figure = t("Your deck's corners read right: {before} before, {after} now.",
        { before: pct(tune.accuracy_before), after: pct(tune.accuracy_after) });
      result = tn("Measured on {n} corner of your photos kept out of the tune, each read at 8 angles.",
        "Measured on {n} corners of your photos kept out of the tune, each read at 8 angles.", tune.held_out);
    } else {
      result = t("Tuned (no corner was held back to measure it: a card seen with both its corners gives one).");
    }
    if (tune.kept_base) {
      figure = measured ? t("Your deck's corners read right: {before} with the base reader, {after} tuned.",
        { before: pct(tune.accuracy_before), after: pct(tune.accuracy_after) }) : figure;
      result += " " + t("The tuned reader read them clearly worse, so this deck keeps the base reader; its cards stay saved for a later tune.");
    }
    rememberTaught();
  } else if (tune.state === "failed") {
    result = t("The tune failed: {error}. The deck's previous reader is kept.", { error: tune.error });
  }
  $("tune-figure").textContent = figure;
  $("tune-result").textContent = result;
  $("tune-result").className = "tune-result" + (tune.state === "failed" ? " error" : "");
  const ended = tuneState !== null && tuneState !== tune.state && !running;
  tuneState = tune.state;
  clearTimeout(pollTimer);
  if (running) pollTimer = setTimeout(pollTune, POLL_MS);
  if (ended) loadDecks();
}

/* A deck taught on this device: the game pages' camera stops offering to teach one. */
function rememberTaught() {
  try { localStorage.setItem("cribcam-teach-offer", "taught"); } catch (error) { /* offered again: harmless */ }
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
    ? t("A deck named “{name}” exists: saving replaces its cards (its tuned reader stays until the new tune succeeds).", { name: answer.name })
    : "";
  renderSession();
  $("shoot-panel").scrollIntoView({ behavior: "smooth", block: "start" });
});

// -- shots --------------------------------------------------------------------------------------
function suitLabel(suit) { return `${SUIT_SYMBOL[suit]} ${SUIT_NAME[suit]()}`; }

function renderShotPrompt() {
  const next = session.next_suit;
  const number = session.shots.length + 1;
  let title;
  let help;
  if (session.mode === "any") {
    title = number <= SUGGESTED_PHOTOS
      ? t("Photo {number} of {count}: any cards of your deck", { number, count: SUGGESTED_PHOTOS })
      : t("Photo {number}: more photos teach more (optional)", { number });
    help = t("Lay out as many cards as fit, face up and apart, and take the photo from above. Cards may repeat from photo to photo: each photo is more to learn from.");
  } else if (next) {
    title = t("Photo {number}: the {suit}, A to K", { number, suit: suitLabel(next) });
    help = t("Lay the {suit} out A, 2, 3 … K in rows, left to right and top to bottom, face up and apart on a darker cloth, then take the photo from above.",
      { suit: SUIT_NAME[next]() });
  } else {
    title = t("Every suit is photographed");
    help = t("Check the cards below, or retake a photo.");
  }
  $("shot-title").textContent = title;
  $("shot-help").textContent = help;
  const full = session.mode === "suits" && !next;
  $("shot-file-button").disabled = full;
  $("camera-shoot").disabled = full;
}

function renderShots() {
  $("shots").replaceChildren(...session.shots.map((shot) => el("li", {},
    (shot.suit ? tn("Photo {number} ({suit}): {n} card", "Photo {number} ({suit}): {n} cards", shot.cards, { number: shot.shot, suit: suitLabel(shot.suit) })
      : tn("Photo {number}: {n} card", "Photo {number}: {n} cards", shot.cards, { number: shot.shot })) + " ",
    button(t("Retake"), () => dropShot(shot.shot)))));
}

/* A photo the server refused, said so that a player knows which photo and what to do: by the
   refusal's code (the API's sentence is about HTTP bodies), else its own words. */
function shotRefused(status, answer, number, name) {
  const what = { number, name };
  if (answer.code === "not_an_image" || status === 415) {
    return t("Photo {number} ({name}) is not a JPEG, PNG or WebP photo: take it again or choose another file.", what);
  }
  if (answer.code === "damaged_image") return t("Photo {number} ({name}) is damaged or cut short: take it again or choose another file.", what);
  if (status === 413) {
    return t("Photo {number} ({name}) is too large: take it at a lower resolution or choose another file.", what);
  }
  return answer.error || t("the photo was refused ({status})", { status: String(status) });
}

/* One photo to the server; whether it was taken (a refusal is said in #shot-status). */
async function sendShot(blob) {
  const suit = session.next_suit;
  const number = session.shots.length + 1;  // as the prompt above numbered it
  $("shot-status").className = "muted";
  $("shot-status").textContent = t("Finding the cards…");
  const { ok, status, answer } = await call("POST", `/api/enroll/${session.id}/shots`, blob);
  if (!ok) {
    $("shot-status").className = "error";
    $("shot-status").textContent = shotRefused(status, answer, number, blob.name || t("from the camera"));
    if (status === 404) $("error").textContent = answer.error;
    return false;
  }
  session = answer;
  const found = answer.added.cards;
  $("shot-status").textContent = suit
    ? tn("Found {n} card of the {suit}.", "Found {n} cards of the {suit}.", found, { suit: SUIT_NAME[suit]() })
    : tn("Found {n} card.", "Found {n} cards.", found);
  renderSession();
  return true;
}

/* Several photos chosen at once: sent one after another, with a progress bar; a refused one is
   said and the rest still go. */
async function sendShots(files) {
  const bar = $("shot-progress");
  bar.max = files.length;
  bar.value = 0;
  bar.hidden = files.length < 2;
  const refused = [];
  for (const [k, file] of files.entries()) {
    $("shot-progress-text").textContent = files.length > 1
      ? t("Reading photo {number} of {count}…", { number: k + 1, count: files.length }) : "";
    if (!(await sendShot(file))) refused.push($("shot-status").textContent);
    bar.value = k + 1;
  }
  bar.hidden = true;
  $("shot-progress-text").textContent = files.length > 1
    ? tn("{n} photo read.", "{n} photos read.", files.length - refused.length) : "";
  if (files.length > 1 && !refused.length) $("shot-status").textContent = "";  // the last photo's count
  if (refused.length && files.length > 1) {
    $("shot-status").className = "error";
    $("shot-status").textContent = refused.join(" ");
  }
}

async function dropShot(number) {
  const answer = await api("DELETE", `/api/enroll/${session.id}/shots/${number}`);
  if (answer) { session = answer; renderSession(); }
}

$("shot-file-button").addEventListener("click", () => $("shot-file").click());
$("shot-file").addEventListener("change", async (event) => {
  const files = [...event.target.files];
  event.target.value = "";
  if (files.length) await sendShots(files);
});

/* The browser's camera, as in camera.js: getUserMedia, one frame drawn on a canvas, a JPEG. */
$("camera-start").addEventListener("click", async () => {
  if (stream) { stopCamera(); return; }
  if (!window.isSecureContext) {
    $("shot-status").textContent = t("This browser only allows the camera on a secure page (HTTPS): start the server with `cribcam serve --lan` and open the https:// address it prints, or choose a photo instead.");
    return;
  }
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    $("shot-status").textContent = t("This browser has no camera access: choose a photo instead.");
    return;
  }
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: "environment", width: { ideal: 1920 }, height: { ideal: 1080 } },
      audio: false,
    });
  } catch (error) {
    $("shot-status").textContent = t("The camera was refused ({error}): allow it in the browser's site settings, or choose a photo instead.", { error: error.name });
    return;
  }
  const video = $("camera-video");
  video.srcObject = stream;
  video.hidden = false;
  await video.play();
  $("camera-shoot").hidden = false;
  $("camera-start").textContent = t("Stop the camera");
});

function stopCamera() {
  if (stream) for (const track of stream.getTracks()) track.stop();
  stream = null;
  $("camera-video").srcObject = null;
  $("camera-video").hidden = true;
  $("camera-shoot").hidden = true;
  $("camera-start").textContent = t("Use the camera");
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
  renderFinish();
}

/* "Save and tune" only where the server can tune; otherwise saving alone, and why. */
function renderFinish() {
  $("finish").disabled = !session.ready || !tuning.ok;
  $("save-only").disabled = !session.ready;
  $("save-only").classList.toggle("primary", !tuning.ok);
  $("finish-note").hidden = tuning.ok;
  $("finish-note").replaceChildren(...(tuning.ok ? []
    : [el("span", {}, ...tuningUnavailable()), el("br"), t("Save the cards now: tune them once it is installed.")]));
}

function chips(cards) { return cards.flatMap((c) => [cardChip(c), " "]); }

function renderProblems() {
  const out = [];
  const dup = Object.entries(session.duplicates);
  for (const [card, numbers] of dup) {
    out.push(el("div", { class: "flag over" }, cardChip(card),
      " " + t("is in one photo {count} times: cards {numbers}. One deck holds each card once: tap the wrong one to correct it.",
        { count: numbers.length, numbers: numbers.map((n) => `#${n}`).join(", ") })));
  }
  if (session.flagged) {
    out.push(el("div", { class: "flag short" },
      tn("{n} card to check (marked).", "{n} cards to check (marked).", session.flagged)));
  } else if (session.candidates.length && !dup.length) {
    // a card in several photos is one card: count the cards, then all their corners
    const cards = new Set(session.candidates.map((c) => c.card).filter(Boolean)).size;
    out.push(el("div", { class: "flag exact" }, tn("{n} card ready.", "{n} cards ready.", cards) + " " +
      tn("{n} corner to learn from.", "{n} corners to learn from.", session.corners)));
  }
  const repeated = Object.keys(session.repeated).length;
  if (repeated) {
    out.push(el("p", { class: "note" }, tn("{n} card is in more than one photo: more to learn from.",
      "{n} cards are in more than one photo: more to learn from.", repeated)));
  }
  if (session.missing.length && session.candidates.length) {
    // information only: the tune learns the cards it is shown; a long list stays folded
    out.push(session.missing.length <= 13
      ? el("div", { class: "note" }, t("Not seen:") + " ", ...chips(session.missing))
      : el("details", { class: "note" }, el("summary", {},
        tn("{n} card not seen: fine, the tune learns the cards it is shown.",
          "{n} cards not seen: fine, the tune learns the cards it is shown.", session.missing.length)),
      ...chips(session.missing)));
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
      : el("span", { class: "label" }, t("not a card") + (c.doubtful ? "?" : ""));  // "?": proposed so
    const why = c.flagged
      ? el("span", { class: "why" }, c.disagree ? t("model {card}?", { card: cardLabel(c.model) }) : t("unsure")) : "";
    const tile = el("button", { type: "button", class: classes.join(" "), "data-number": String(c.number),
      "aria-label": (c.flagged ? t("card {number}: {card}, to check", { number: c.number, card: c.card || t("not a card") })
        : t("card {number}: {card}", { number: c.number, card: c.card || t("not a card") })) },
      el("img", { src: c.where, alt: t("card {number} boxed on photo {photo}", { number: c.number, photo: c.shot }),
        loading: "lazy", width: "180", height: "180" }),
      el("span", { class: "num" }, t("#{number} · photo {photo}", { number: c.number, photo: c.shot })), label, why);
    tile.addEventListener("click", () => openFix(c));
    return el("li", {}, tile);
  }));
}

// -- correcting one card ------------------------------------------------------------------------
const picker = new CardPicker($("picker"), (chosen) => { $("fix-ok").disabled = chosen.length !== 1; });

function openFix(candidate) {
  fixing = candidate;
  const values = { number: candidate.number, model: cardLabel(candidate.model), confidence: pct(candidate.confidence) };
  $("fix-prompt").textContent = candidate.layout
    ? t("Card #{number}: the layout says {layout}, the model reads {model} ({confidence}). What is it?",
      { ...values, layout: cardLabel(candidate.layout) })
    : t("Card #{number}: the model reads {model} ({confidence}). What is it?", values);
  $("fix-img").src = candidate.where;
  $("fix-img").alt = t("card {number} boxed on photo {photo}", { number: candidate.number, photo: candidate.shot });
  // the likeliest names as buttons: one tap confirms the right one
  $("fix-choices").replaceChildren(...(candidate.choices || []).map((card) => {
    const choice = el("button", { type: "button", class: "choice" + (isRed(card) ? " red" : ""), "data-card": card }, cardLabel(card));
    choice.addEventListener("click", () => sendFix(card));
    return choice;
  }));
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
  // saved but not tuned (the server cannot tune): the note beside the buttons says why
  const untuned = !ok && answer.deck && answer.code;
  if (untuned) tuning = { ok: false, code: answer.code, why: answer.error };
  renderFinish();
  if (answer.deck) {
    $("finish-status").textContent = tn("Saved {n} card in the deck “{name}”.", "Saved {n} cards in the deck “{name}”.",
      answer.deck.cards, { name: answer.deck.name }) + (status === 202 ? " " + t("Tuning…") : untuned ? " " + t("Not tuned.") : "");
  }
  if (!ok) {
    if (!untuned) $("error").textContent = answer.error || `HTTP ${status}`;
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
