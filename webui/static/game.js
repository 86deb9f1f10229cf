/* One game's table: draws the state the server sends (at load, after each action, and live
   over server-sent events) and turns taps into API actions. All state lives on the server. */
"use strict";
const root = document.getElementById("game");
const GAME = root.dataset.game;
const $ = (id) => document.getElementById(id);
let state = null;
let pickerAction = null;  // what the picker's OK does with the chosen cards
let pickerUnavailable = [];  // the cards the open picker greys out

function seatName(seat) { return state.names[seat] || t("Seat {number}", { number: seat + 1 }); }
function sideNames() {
  if (state.settings.players !== 4) return state.names.slice();
  return [`${state.names[0]} & ${state.names[2]}`, `${state.names[1]} & ${state.names[3]}`];
}
function sideOf(seat) { return state.settings.players === 4 ? seat % 2 : seat; }

/* The server's sentences as the page writes things: seat numbers as the players' names
   ("seat 1" is the engine's second seat) and cards with suit symbols. */
function tableWords(text) {
  return cardsInText(text).replace(/\bseat (\d)\b/g, (whole, n) =>
    state && Number(n) < state.names.length ? seatName(Number(n)) : whole);
}

/* The engine's codes in the page's language: a step of the play, a kind of score, a skunk. */
function pegAction(action) {
  switch (action) {
    case "go": return tc("peg", "go");
    case "go point": return tc("peg", "go point");
    case "last card": return tc("peg", "last card");
    default: return action;
  }
}
function eventName(kind) {
  switch (kind) {
    case "three for last": return tc("event", "three for last");
    case "his heels": return tc("event", "his heels");
    case "play": return tc("event", "play");
    case "go": return tc("event", "go");
    case "go point": return tc("event", "go point");
    case "last card": return tc("event", "last card");
    case "hand": return tc("event", "hand");
    case "crib": return tc("event", "crib");
    case "muggins": return tc("event", "muggins");
    case "penalty": return tc("event", "penalty");
    case "correction": return tc("event", "correction");
    default: return kind;
  }
}
function skunkName(level) {
  switch (level) {
    case "skunk": return t("skunk");
    case "double": return t("double skunk");
    case "triple": return t("triple skunk");
    default: return level;
  }
}

/* A claim checked against the count (the API's numbers, not its English description). */
function claimText(claim) {
  if (claim.outcome === "exact") return t("claimed {claimed}: exact", { claimed: claim.claimed });
  if (claim.outcome === "over") {
    return t("claimed {claimed} but the count is {actual}: over by {over}",
      { claimed: claim.claimed, actual: claim.actual, over: claim.claimed - claim.actual });
  }
  return t("claimed {claimed} of {actual}: missed: {items}",
    { claimed: claim.claimed, actual: claim.actual, items: claim.missed_items.map(itemText).join(", ") });
}

/* A score's note in the log: the engine's English, in the page's language where it is one of
   the engine's fixed forms; otherwise as written, in the table's words. */
function noteText(note) {
  const seat = (n) => seatName(Number(n));
  let m;
  if (note === "three for last to the non-dealer") return t("three for last to the non-dealer");
  if (note === "manual correction") return t("manual correction");
  if ((m = /^called for (\d+)$/.exec(note))) return t("called for {points}", { points: Number(m[1]) });
  if ((m = /^muggins on seat (\d+): (.*)$/.exec(note))) return t("muggins on {name}: {claim}", { name: seat(m[1]), claim: descriptionText(m[2]) });
  if ((m = /^wrong muggins call by seat (\d+) for (\d+): nothing was missed( \(no penalty\))?$/.exec(note))) {
    const text = t("wrong muggins call by {name} for {points}: nothing was missed", { name: seat(m[1]), points: Number(m[2]) });
    return m[3] ? `${text} ${t("(no penalty)")}` : text;
  }
  if ((m = /^false claim of game \((.*)\): 15 back$/.exec(note))) return t("false claim of game ({claim}): 15 back", { claim: descriptionText(m[1]) });
  if ((m = /^false claim of game by seat (\d+): overclaimed points$/.exec(note))) return t("false claim of game by {name}: overclaimed points", { name: seat(m[1]) });
  return tableWords(note);
}
/* A claim's English description (inside a note) in the page's language. */
function descriptionText(text) {
  let m;
  if ((m = /^claimed (\d+): exact$/.exec(text))) return claimText({ outcome: "exact", claimed: Number(m[1]) });
  if ((m = /^claimed (\d+) but the count is (\d+): over by \d+$/.exec(text))) {
    return claimText({ outcome: "over", claimed: Number(m[1]), actual: Number(m[2]) });
  }
  if ((m = /^claimed (\d+) of (\d+): missed: (.*)$/.exec(text))) {
    return claimText({ outcome: "short", claimed: Number(m[1]), actual: Number(m[2]), missed_items: m[3].split(", ") });
  }
  return tableWords(text);
}

/* An error is shown next to the control that caused it (a player looks where they tapped):
   the last tapped control is remembered, and the one error line moves beside it. */
let lastControl = null;
document.addEventListener("click", (event) => {
  lastControl = event.target.closest("button, input, select, summary");
}, true);
function showError(text) {
  const line = $("error");
  line.textContent = tableWords(text);
  const near = lastControl && lastControl.isConnected ? lastControl : null;
  if (near && near.closest("#picker-box")) $("picker-actions").append(line);  // in the sticky bar
  else if (near && near.closest("form")) near.closest("form").append(line);
  else if (near && near.closest("#controls, #muggins, #over, #summary")) near.closest("#controls, #muggins, #over, #summary").after(line);
  else root.prepend(line);
  line.scrollIntoView({ block: "nearest" });  // a line below the fold would go unread
}

async function api(method, path, body) {
  $("error").textContent = "";
  let response;
  try {
    response = await fetch(path, {
      method, headers: { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    showError(t("The server cannot be reached: {error}", { error: String(error) }));
    return null;
  }
  const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) {
    showError(answer.error || `HTTP ${response.status}`);
    return null;
  }
  return answer;
}

async function act(action) {
  const answer = await api("POST", `/api/games/${GAME}/actions`, action);
  if (answer) render(answer);
  return answer;
}

// -- the picker ----------------------------------------------------------------------------
const picker = new CardPicker($("picker"), (chosen, tapped) => {
  $("picker-ok").disabled = pickerAction === null || !pickerAction.ready(chosen);
  if (pickerAction && pickerAction.changed) pickerAction.changed(chosen);
  // every pick has a fixed size: the tap that completes it is the OK (Undo takes it back)
  if (tapped && pickerAction && pickerAction.auto && chosen.length === picker.wanted) submitPick();
});
let pickerChosen = [];  // what the open picker proposed (pre-selected), for Clear
/* Only the cards that are possible are offered, in a compact grid: `only` (a seat's own cards
   when the hands are known, a hand's proposed cards) or else every card not yet seen this deal
   (nor in `extraUnavailable`). `chosen`: pre-selected, so the pick is one tap on OK; `auto`:
   the tap that completes the pick sends it; `clearTo`: what Clear goes back to; `changed`: told
   the chosen cards after every tap. */
function openPicker(prompt, wanted, { claim = false, optional = false, extraUnavailable = [], only = null,
  chosen = [], auto = true, clearTo = chosen, changed = null }, done) {
  $("picker-box").hidden = false;
  $("picker-prompt").textContent = prompt;
  $("claim-label").hidden = !claim;
  $("claim").value = "";
  pickerAction = { done, auto, changed, ready: (cards) => cards.length === wanted || (optional && cards.length === 0) };
  pickerUnavailable = only ? [...picker.buttons.keys()].filter((card) => !only.includes(card))
    : [...state.seen, ...extraUnavailable];
  pickerChosen = clearTo;
  $("picker").classList.toggle("compact", only !== null);  // a few cards: one row, not one a suit
  picker.reset(wanted, pickerUnavailable, { hide: true, chosen });
}
function closePicker() { $("picker-box").hidden = true; pickerAction = null; }
function claimValue() {
  const text = $("claim").value.trim();
  return text === "" ? undefined : Number(text);
}
async function submitPick() {
  const action = pickerAction;
  if (!action) return;
  pickerAction = null;  // one answer per pick, however fast the taps come
  $("picker-ok").disabled = true;
  const revision = state.revision;
  await action.done(picker.chosen.slice(), claimValue());
  // refused (the error is beside the picker): the same pick may be tried again
  if (pickerAction === null && state.revision === revision && !$("picker-box").hidden) {
    pickerAction = action;
    // a one-card pick starts again, so that the next tap (the same card again) sends it
    if (action.auto && picker.wanted === 1) picker.reset(1, pickerUnavailable, { hide: true });
    $("picker-ok").disabled = !action.ready(picker.chosen);
  }
}
$("picker-ok").addEventListener("click", submitPick);
$("picker-clear").addEventListener("click", () =>
  picker.reset(picker.wanted, pickerUnavailable, { hide: true, chosen: pickerChosen }));

/* Several picks in a row (e.g. every dealt hand), then one action with them all. `done`: the
   picks already made, `picking`: the cards chosen so far in the next (both from a draft);
   `progress(done, picking)` is told after every tap, to keep the draft. */
function pickSequence(steps, finish, { done = [], picking = [], progress = () => {} } = {}) {
  const results = done.slice();
  const next = (chosen) => {
    const step = steps[results.length];
    const changed = (cards) => progress(results, cards);
    openPicker(step.prompt, step.wanted, { extraUnavailable: results.flat(), chosen, clearTo: [], changed }, async (cards) => {
      // the last pick is kept only once the action is recorded: refused, it may be picked again
      if (results.length + 1 === steps.length) await finish([...results, cards]);
      else { results.push(cards); progress(results, []); next([]); }
    });
  };
  next(picking);
}

// -- a half-made entry survives a reload -----------------------------------------------------
/* The dealt hands picked so far are kept on this device per game, so that a reload (or a
   phone locked and woken) comes back to the same entry, not to the starter picker, whose
   next tap would record the deal and its starter. Storage refused (a private window): the
   entry goes on, but a reload loses it. */
const DRAFT_KEY = `cribcam-entry-${GAME}`;
let draftHere = null;  // the draft in memory too: without storage the entry still goes on
function loadDraft() {
  try { return JSON.parse(localStorage.getItem(DRAFT_KEY) || "null"); } catch { return draftHere; }
}
function saveDraft(draft) {
  draftHere = draft;
  try { localStorage.setItem(DRAFT_KEY, JSON.stringify(draft)); } catch { /* kept in memory only */ }
}
function clearDraft() {
  draftHere = null;
  try { localStorage.removeItem(DRAFT_KEY); } catch { /* nothing kept */ }
}
/* This deal's draft, if any; a draft of another deal or phase is stale and is dropped. */
function currentDraft() {
  const draft = loadDraft();
  if (draft && state.phase === "deal" && draft.deal === state.deal) return draft;
  if (draft) clearDraft();
  return null;
}

// -- drawing -------------------------------------------------------------------------------
function render(next) {
  // the live stream also sends the state this page's own action was answered with (or an
  // older one): drawing it again would clear a half-made pick
  if (state && next.id === state.id && next.revision <= state.revision) return;
  state = next;
  renderScores();
  renderBar();
  drawBoard($("board"), state, sideNames());
  renderMatch();
  renderNow();
  renderOver();
  renderSummary();
  renderPlay();
  renderShows();
  renderLog();
  renderDetectedPicks();
  renderSettle();
  $("undo").disabled = state.actions === 0;
}

function renderScores() {
  const box = $("scores");
  box.replaceChildren();
  sideNames().forEach((name, side) => {
    const turnSide = state.turn === null ? null : sideOf(state.turn);
    const tags = [];
    if (state.dealer !== null && sideOf(state.dealer) === side) tags.push(t("deals · crib"));
    box.append(el("div", { class: "score" + (turnSide === side ? " turn" : "") },
      el("div", {}, name), el("div", { class: "n" }, num(state.scores[side])),
      el("div", { class: "tag" }, tags.join(" "))));
  });
}

/* The sticky header's line: every side's score, and in the play the count and whose turn. */
function renderBar() {
  const turnSide = state.turn === null ? null : sideOf(state.turn);
  const parts = sideNames().map((name, side) => el("span", { class: "bar-side" + (turnSide === side ? " turn" : "") },
    `${name} `, el("b", {}, num(state.scores[side]))));
  if (state.phase === "play") {
    parts.push(el("span", { class: "bar-count" }, ...tx("count {count}", { count: el("b", {}, num(state.count)) })),
      el("span", { class: "bar-turn" }, t("{name} to play", { name: seatName(state.turn) })));
  }
  $("bar").replaceChildren(...parts);
}

function renderMatch() {
  const m = state.match;
  let text = t("Game to {target}", { target: state.settings.target });
  if (m.games_per_match > 1) {
    text += " · " + t("match: game {number} of {games}; match points {standings}", {
      number: m.games.indexOf(state.id) + 1, games: m.games_per_match, standings: m.standings.map(num).join("–") });
  }
  if (state.outcome) {
    const o = state.outcome;
    const skunks = Object.entries(o.skunks).filter(([, l]) => l !== "none")
      .map(([side, level]) => `${sideNames()[side]}: ${skunkName(level)}`);
    text += " · " + t("{name} wins {scores}", { name: sideNames()[o.winner], scores: o.scores.map(num).join("–") }) +
      (skunks.length ? ` (${skunks.join(", ")})` : "");
  }
  $("match").textContent = text;
}

function currentDealLog() {
  const log = state.log;
  let start = 0;
  log.forEach((a, i) => { if (a.kind === "deal") start = i; });
  return log.slice(start);
}

/* How many cards each player is dealt. */
function handSize() { return state.settings.players === 2 && state.settings.variant === "six-card" ? 6 : 5; }

/* With known hands, the cards `seat` still holds (dealt, not laid away, not played); else
   null. The picker offers these: `seen` holds every dealt card. */
function heldBy(seat) {
  if (!state.hands_known) return null;
  const log = currentDealLog();
  const per = handSize();
  const gone = new Set([
    ...log.filter((a) => a.kind === "discard" && a.seat === seat).flatMap((a) => a.cards || []),
    ...state.play.filter((step) => step.seat === seat && step.card).map((step) => step.card),
  ]);
  return log[0].cards.slice(seat * per, (seat + 1) * per).filter((card) => !gone.has(card));
}

function renderNow() {
  const controls = $("controls");
  controls.replaceChildren();
  closePicker();
  $("count-box").hidden = state.phase !== "play";
  $("count").textContent = num(state.count);
  $("turn").textContent = state.turn === null ? "" : t("{name} to play", { name: seatName(state.turn) });
  $("count-cards").replaceChildren(...state.count_cards.map((c) => el("li", {}, cardChip(c))));
  const title = $("now-title");
  const settings = state.settings;
  const away = settings.players === 2 ? 2 : 1;
  const button = (text, onclick, primary = false) =>
    controls.append(el("button", { type: "button", class: primary ? "primary" : "", onclick }, text));
  const seats = [...Array(settings.players).keys()];
  switch (state.phase) {
    case "cut for deal":
      title.textContent = t("Who deals first?");
      seats.forEach((s) => button(t("{name} deals", { name: seatName(s) }), () => act({ kind: "dealer", seat: s })));
      button(t("Enter the cut cards"), () => openPicker(
        t("One cut card per seat, in seat order ({names})", { names: state.names.join(", ") }), settings.players, {},
        (cards) => act({ kind: "cut", cards })));
      break;
    case "deal": {
      title.textContent = t("Deal {number}: {name} deals", { number: state.deal + 1, name: seatName(state.dealer) });
      const draft = currentDraft();
      if (draft && draft.mode === "hands") {
        enterDealtHands(draft, button);
        break;
      }
      // the usual deal, hands hidden, is one tap: the starter says it was dealt and laid away
      openPicker(t("Hands hidden: once everyone has laid away, tap the starter card"), 1, {}, async (cards) => {
        if (!await act({ kind: "deal" })) return;
        for (const s of seats) if (!await act({ kind: "discard", seat: s })) return;
        await act({ kind: "starter", card: cards[0] });
      });
      button(t("Dealt (hands stay hidden)"), () => act({ kind: "deal" }));
      button(t("Enter the dealt hands"), () => {
        saveDraft({ mode: "hands", deal: state.deal, hands: [], picking: [] });
        renderNow();
      });
      break;
    }
    case "discard": {
      title.textContent = t("Lay away to the crib");
      const done = new Set(currentDealLog().filter((a) => a.kind === "discard").map((a) => a.seat));
      for (const s of seats.filter((seat) => !done.has(seat))) {
        if (!state.hands_known) button(t("{name}: laid away", { name: seatName(s) }), () => act({ kind: "discard", seat: s }), true);
        button(away === 1 ? t("{name}: name the card", { name: seatName(s) }) : t("{name}: name the cards", { name: seatName(s) }), () => openPicker(
          t("{name} lays away {count}", { name: seatName(s), count: away }), away, { only: heldBy(s) },
          (cards) => act({ kind: "discard", seat: s, cards })));
      }
      break;
    }
    case "starter":
      title.textContent = t("Turn the starter");
      openPicker(t("The starter card (a jack: his heels, 2 to the dealer)"), 1, {},
        (cards) => act({ kind: "starter", card: cards[0] }));
      break;
    case "play":
      title.textContent = t("The play · starter {card}", { card: state.starter ? cardLabel(state.starter) : "" });
      // only what may be laid: a card past 31 is not offered
      const fits = (card) => pipValue(card) <= 31 - state.count;
      const held = heldBy(state.turn);
      openPicker(t("{name} lays a card (a claim goes in first)", { name: seatName(state.turn) }), 1,
        { claim: true, only: held && held.filter(fits), extraUnavailable: [...picker.buttons.keys()].filter((c) => !fits(c)) },
        (cards, claim) => act({ kind: "play", seat: state.turn, card: cards[0], claim }));
      if (goPossible()) button(t("{name}: go", { name: seatName(state.turn) }), () => act({ kind: "go", seat: state.turn }));
      break;
    case "show":
    case "over": {
      const nxt = state.next_show;
      if (state.phase === "over") title.textContent = t("Game over");  // the over panel says the rest
      if (nxt) {
        const whose = showOf(seatName(nxt.seat), nxt.what);
        if (state.phase === "show") title.textContent = t("The show: {whose}", { whose });
        const size = settings.variant === "five-card" && nxt.what === "hand" ? 3 : 4;
        const known = shownCards(nxt);
        if (known) {
          // the cards are known (entered, or laid in the play): proposed, one tap on OK
          openPicker(t("Count {whose} (starter {card}); a claim is checked", { whose, card: cardLabel(state.starter) }), size,
            { claim: true, only: known, chosen: known, auto: false },
            (cards, claim) => act({ kind: "show", claim }));
        } else {
          openPicker(t("Count {whose} (starter {card}): tap its {count} cards (a claim goes in first)",
            { whose, card: cardLabel(state.starter), count: size }), size, { claim: true },
            (cards, claim) => act({ kind: "show", cards, claim }));
        }
      }
      break;
    }
  }
  renderMuggins();
}

/* Entering the dealt hands, hand by hand, from `draft` (what was picked before a reload). The
   starter picker is not offered meanwhile: leaving the entry is its own button. */
function enterDealtHands(draft, button) {
  const settings = state.settings;
  const per = handSize();
  const seats = [...Array(settings.players).keys()];
  const steps = seats.map((s) => ({ prompt: t("{name}'s {count} cards", { name: seatName(s), count: per }), wanted: per }));
  if (settings.players === 3) steps.push({ prompt: t("The card dealt to the crib"), wanted: 1 });
  const deal = state.deal;
  pickSequence(steps, async (hands) => {
    const body = { kind: "deal", hands: hands.slice(0, settings.players) };
    if (settings.players === 3) body.crib_card = hands[3][0];
    const answer = await act(body);
    if (answer) clearDraft();
    return answer;
  }, {
    done: draft.hands.slice(0, steps.length - 1), picking: draft.picking,
    progress: (hands, picking) => saveDraft({ mode: "hands", deal, hands, picking }),
  });
  button(t("Stop entering the hands (keep them hidden)"), () => { clearDraft(); renderNow(); });
}

/* What a card counts in the play: ace 1, court cards 10. */
function pipValue(card) {
  const rank = card.slice(0, -1);
  return rank === "A" ? 1 : ["J", "Q", "K"].includes(rank) ? 10 : Number(rank);
}

/* Whether the player to play may say go: the server says (`go_possible`); a server without it
   is asked nothing it cannot answer: with hidden hands a go is possible once no 10 fits. */
function goPossible() {
  if ("go_possible" in state) return state.go_possible;
  return !state.hands_known && state.count >= 22;
}

/* A show's cards when the page knows them: a known hand or crib as entered; a hidden hand as
   its cards were laid in the play. Null for a hidden crib: its cards are entered. */
function shownCards(nxt) {
  const log = currentDealLog();
  if (nxt.what === "hand" && !state.hands_known) {
    return state.play.filter((step) => step.seat === nxt.seat && step.card).map((step) => step.card);
  }
  if (!state.hands_known) return null;
  const per = handSize();
  const discards = log.filter((a) => a.kind === "discard").flatMap((a) => a.cards || []);
  if (nxt.what === "crib") {
    return [...discards, ...log[0].cards.slice(state.settings.players * per)];  // + the pack's crib card
  }
  return log[0].cards.slice(nxt.seat * per, (nxt.seat + 1) * per).filter((card) => !discards.includes(card));
}

/* The last claim's flag, beside where claims are made: the play's claims during the play, the
   shows' during the show (a deal's flags stay with that deal: in the next deal they are in its
   shows and the summary, not here). An open muggins window is shown whenever it is open: the
   opponent may still call it. */
function renderMuggins() {
  const box = $("muggins");
  box.replaceChildren();
  const thisDeal = state.phase === "play" || state.phase === "show";
  const ofThisPhase = (e) => ["hand", "crib"].includes(e.kind) === (state.phase === "show");
  const last = thisDeal
    ? [...state.events].reverse().find((e) => e.claim && e.deal === state.deal && ofThisPhase(e))
    : null;
  const open = state.muggins_open;
  if (!last && !open) { box.hidden = true; return; }
  box.hidden = false;
  const check = open || last.claim;
  const who = open ? seatName(open.seat) : seatName(last.seat);
  box.append(el("div", { class: `flag ${check.outcome}` }, `${who}: ${claimText(check)}`));
  if (open && open.outcome === "short" && state.settings.muggins) {
    for (let s = 0; s < state.settings.players; s++) {
      if (sideOf(s) === sideOf(open.seat)) continue;
      box.append(el("button", { type: "button", class: "primary",
        onclick: () => act({ kind: "muggins", seat: s, points: open.missed }) },
        t("Muggins! {name} takes {points}", { name: seatName(s), points: open.missed })));
    }
  }
}

/* The game over, in large type for the whole table: winner, final score, skunk, the match. */
function renderOver() {
  const box = $("over");
  const o = state.outcome;
  box.hidden = !o;
  if (!o) return;
  const names = sideNames();
  const loser = o.scores.findIndex((_, side) => side !== o.winner);
  const skunk = Object.entries(o.skunks).find(([, level]) => level !== "none");
  const skunkText = {
    skunk: (name) => t("{name} is skunked", { name }),
    double: (name) => t("{name} is double skunked", { name }),
    triple: (name) => t("{name} is triple skunked", { name }),
  };
  const m = state.match;
  const parts = [
    el("div", { class: "over-winner" }, t("{name} wins", { name: names[o.winner] })),
    el("div", { class: "over-score" }, `${num(o.scores[o.winner])} – ${num(o.scores[loser])}`),
    el("div", { class: "over-skunk" }, skunk
      ? (skunkText[skunk[1]] || ((name) => `${name}: ${skunk[1]}`))(names[skunk[0]]) : t("No skunk")),
  ];
  if (m.games_per_match > 1) {
    const standing = names.map((n, side) => `${n} ${num(m.standings[side])}`).join(" – ");
    parts.push(el("div", { class: "over-match" }, m.over
      ? t("Match over: {name} wins the match ({standing})", { name: names[m.winner], standing })
      : t("Match points after game {number} of {games}: {standing}", { number: m.finished, games: m.games_per_match, standing })));
  }
  const next = !m.over && m.games[m.games.length - 1] === state.id
    ? el("button", { type: "button", class: "primary", onclick: async () => {
      const answer = await api("POST", `/api/games/${GAME}/next`);
      if (answer) location.href = `/games/${answer.id}`;
    } }, t("Next game"))
    : el("a", { href: "/", class: "button primary" }, t("New game"));
  parts.push(next);
  // each player's record, with this game in it
  const records = state.names.map((name) => el("a", { href: `/players/${encodeURIComponent(name)}` }, name));
  parts.push(el("div", { class: "over-records" }, t("Records:"), " ",
    ...records.flatMap((link, i) => (i ? [" · ", link] : [link]))));
  box.replaceChildren(...parts);
}

/* After a deal's crib (and at the game's end): what each player scored in it, where from. */
function renderSummary() {
  const box = $("summary");
  const done = state.phase === "deal" || state.phase === "over";
  const deal = state.phase === "over" ? Math.max(0, ...state.events.map((e) => e.deal)) : state.deal;
  const events = state.events.filter((e) => e.deal === deal && e.seat !== null && !e.for_interest && !e.moot);
  box.hidden = !done || deal < 1 || !events.length;
  if (box.hidden) return;
  const from = (seat, kinds, not = false) => events
    .filter((e) => e.seat === seat && kinds.includes(e.kind) !== not).reduce((sum, e) => sum + e.points, 0);
  const other = ["hand", "crib", "muggins", "penalty", "correction"];
  const cell = (n) => el("td", { class: "n" }, num(n));
  const rows = state.names.map((name, seat) => el("tr", { "data-seat": String(seat) },
    el("th", {}, name), cell(from(seat, other, true)), cell(from(seat, ["hand"])),
    cell(from(seat, ["crib"])), cell(from(seat, ["muggins", "penalty", "correction"])),
    cell(events.filter((e) => e.seat === seat).reduce((sum, e) => sum + e.points, 0)),
    cell(state.scores[sideOf(seat)])));
  const heads = ["", t("pegging"), t("hand"), t("crib"), t("other"), t("deal"), t("score")];
  box.replaceChildren(el("h3", {}, t("Deal {number} summary", { number: deal })), el("table", { class: "summary-table" },
    el("tr", {}, ...heads.map((h) => el("th", {}, h))), ...rows),
    el("p", { class: "muted" }, t("other: muggins taken, penalties and score corrections")));
}

function renderPlay() {
  const list = $("play");
  list.replaceChildren();
  const heels = state.events.find((e) => e.kind === "his heels" && e.deal === state.deal);
  if (heels) list.append(el("li", {}, t("His heels: {name} pegs 2 for the starter {card}", { name: seatName(heels.seat), card: cardLabel(heels.cards[0]) })));
  for (const step of state.play) {
    const reasons = step.items.map((i) => t("{name} for {points}", { name: itemName(i.name), points: i.points })).join(", ");
    let text;
    if (step.action === "play") text = tx("{name} plays {card} — {count}", { name: seatName(step.seat), card: cardChip(step.card), count: step.count });
    else text = [`${seatName(step.seat)}: ${pegAction(step.action)}`];
    const item = el("li", {}, ...text);
    if (reasons) item.append(" ", el("span", { class: "pts" }, reasons));
    list.append(item);
    const reset = step.action === "go point" || step.items.some((i) => i.name === "31");
    if (reset) list.append(el("li", { class: "reset" }, t("the count starts again at 0")));
  }
}

function renderShows() {
  const box = $("shows");
  box.replaceChildren();
  if (!state.shows.length) { box.append(el("p", { class: "muted" }, t("Nothing counted yet."))); return; }
  for (const show of state.shows) {
    const what = showOf(seatName(show.seat), show.what);
    const head = el("div", {}, t("Deal {number} · {whose}:", { number: show.deal, whose: what }), " ", ...show.hand.map(cardChip),
      " + ", t("starter"), " ", cardChip(show.starter));
    const items = el("ul", {}, ...show.items.map((i) => el("li", {},
      t("{name} {cards} for {points}", { name: itemName(i.name), cards: i.cards.map(cardLabel).join(" "), points: i.points }))));
    const node = el("div", { class: "show" }, head, items,
      el("div", { class: "spoken" }, show.spoken ? `“${show.spoken}”` : t("nineteen (nothing)")),
      el("div", { class: "total" }, num(show.total) + (show.for_interest ? " " + t("(for interest: the game was won)") : "")));
    if (show.claim) node.append(el("div", { class: `flag ${show.claim.outcome}` }, claimText(show.claim)));
    box.append(node);
  }
}

function renderLog() {
  const list = $("events");
  list.replaceChildren(...state.events.slice().reverse().map((e) => {
    const who = e.seat === null ? "" : `${seatName(e.seat)} `;
    const detail = [...e.items.map(itemText), e.note && noteText(e.note)].filter(Boolean).join("; ");
    return el("li", {}, `${t("deal {number}:", { number: e.deal })} ${who}${eventName(e.kind)} ${e.points ? (e.points > 0 ? "+" : "") + num(e.points) : ""}` +
      (detail ? ` (${detail})` : ""));
  }));
  const seat = $("correct-seat");
  if (seat.options.length !== state.settings.players) {
    seat.replaceChildren(...state.names.map((n, s) => el("option", { value: String(s) }, n)));
  }
}

// -- the rest of the page ------------------------------------------------------------------
$("undo").addEventListener("click", async () => {
  const answer = await api("POST", `/api/games/${GAME}/undo`);
  if (answer) render(answer);
});

$("correct-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  await act({ kind: "correct", seat: Number(form.get("seat")), points: Number(form.get("points")) });
});

$("advice-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const hand = String(form.get("hand")).split(/[\s,]+/).filter(Boolean).map((c) => c.toUpperCase());
  const answer = await api("POST", "/api/advise", {
    hand, role: form.get("role"), players: state.settings.players, variant: state.settings.variant,
  });
  const out = $("advice-out");
  out.replaceChildren();
  if (!answer) return;
  const rows = answer.options.slice(0, 5).map((o) => el("tr", {},
    el("td", {}, o.discard.map(cardLabel).join(" ")), el("td", {}, o.keep.map(cardLabel).join(" ")),
    el("td", {}, num(o.hand.mean, 2)), el("td", {}, num(answer.crib_sign * o.crib, 2)),
    el("td", {}, num(o.net, 2))));
  const heads = [t("lay away"), t("keep"), t("hand"), t("crib"), t("net")];
  out.append(el("table", { class: "advice" },
    el("tr", {}, ...heads.map((h) => el("th", {}, h))), ...rows));
});

// -- the camera ----------------------------------------------------------------------------
let detected = null;  // the last detection answer from the browser camera or the demo photo
function renderDetectedPicks() {
  const box = $("detected-picks");
  box.replaceChildren();
  if (!detected || state.phase !== "play" || state.turn === null) return;
  const seen = new Set(state.seen);
  for (const det of detected.cards || []) {
    if (seen.has(det.card)) continue;
    box.append(el("button", { type: "button",
      onclick: () => act({ kind: "play", seat: state.turn, card: det.card, frame: detected.frame }) },
      ...tx("{name} lays {card}", { name: seatName(state.turn), card: cardChip(det.card) })));
  }
}
const showDemo = () => { $("demo-photo").hidden = false; };
const camera = new Camera(GAME, $("camera-video"), $("camera-overlay"), $("camera-status"),
  (answer, picture) => {
    detected = answer;
    renderDetectedPicks();
    renderCameraTable($("camera-table"), answer.table, seatName, (card) => openMisread(card, picture));
  }, showDemo);
/* One button starts and stops the browser camera; it says which it will do. */
const syncCameraButton = () => { $("camera-start").textContent = camera.running ? t("Stop camera") : t("Start camera"); };
camera.onStop = syncCameraButton;  // the camera may stop by itself (the server refuses frames)
camera.onStart = () => offerTeaching($("teach-slot"), root.dataset.deck);
$("camera-start").addEventListener("click", async () => {
  if (camera.running) camera.stop();
  else await camera.start();
  syncCameraButton();
});
$("demo-photo").addEventListener("click", async () => {
  const answer = await tryDemoPhoto(GAME, $("demo-img"), $("demo-overlay"), (text) => { $("camera-status").textContent = text; });
  if (answer) { detected = answer; renderDetectedPicks(); }
});
camera.available().then((yes) => { if (!yes) showDemo(); });

/* A card the camera misread: the player names it, and each corner index it was read by is
   kept, with the frame it was read in, for the deck in use's next tune. Not offered for the
   demo photo: it shows the test deck, whose pictures would teach the player's deck wrong. */
let misread = null;  // { card, picture }: the card being named and its frame
const misreadPicker = new CardPicker($("misread-picker"), (chosen) => {
  $("misread-ok").disabled = chosen.length !== 1;
});
function openMisread(card, picture) {
  misread = { card, picture };
  $("misread-prompt").textContent = t("The camera read {card}. What is it?", { card: cardLabel(card.card) });
  misreadPicker.reset(1, [card.card]);
  $("misread-dialog").showModal();
}
async function saveMisread(chosen) {
  const { card, picture } = misread;
  $("misread-dialog").close();
  const status = $("misread-status");
  status.className = "muted";
  status.textContent = t("Saving {card}…", { card: cardLabel(chosen) });
  let saved = 0;
  let deck = null;
  for (const box of card.index_boxes) {
    let reply;
    try {
      reply = await postCorrection(chosen, box, picture);
    } catch (error) {
      reply = { ok: false, answer: { error: t("the server cannot be reached: {error}", { error: String(error) }) } };
    }
    if (!reply.ok) {
      const kept = saved ? " " + t("({saved} of {corners} corners were saved)", { saved, corners: card.index_boxes.length }) : "";
      status.className = "error";
      status.replaceChildren(t("Not saved: {error}", { error: reply.answer.error || `HTTP ${reply.status}` }) + `${kept}. `,
        el("a", { href: "/enroll" }, t("Choose or teach a deck")));
      return;
    }
    saved += 1;
    deck = reply.answer.deck.name;
  }
  status.textContent = tn("Saved: {card} will be learnt at the next tune of the deck “{deck}” ({n} corner).",
    "Saved: {card} will be learnt at the next tune of the deck “{deck}” ({n} corners).", saved, { card: cardLabel(chosen), deck });
}
$("misread-ok").addEventListener("click", () => saveMisread(misreadPicker.chosen[0]));

/* The deck the server reads with may be changed on the deck page meanwhile: look again
   whenever this page comes back into view. */
async function refreshDeckInUse() {
  const response = await fetch("/api/decks").catch(() => null);
  if (!response || !response.ok) return;
  const { active } = await response.json();
  $("deck-in-use").textContent = active ? t("deck “{name}”", { name: active }) : t("base model");
  root.dataset.deck = active || "";  // the teaching offer follows a deck chosen meanwhile
  if (active && $("teach-offer")) $("teach-offer").remove();
}
document.addEventListener("visibilitychange", () => { if (!document.hidden) refreshDeckInUse(); });
$("misread-cancel").addEventListener("click", () => $("misread-dialog").close());

const serverCamera = root.dataset.serverCamera === "on" ? new ServerCamera(GAME, {
  status: $("server-camera-status"), img: $("server-camera-img"),
  overlay: $("server-camera-overlay"), suggestions: $("server-camera-suggestions"),
}, act) : null;
if (serverCamera) $("server-camera-follow").addEventListener("click", () => serverCamera.follow());

// -- settle it: the current count card by card, with the frame each card was seen in --------
async function renderSettle() {
  if (!$("settle").open) return;
  const answer = await api("GET", `/api/games/${GAME}/count`);
  const out = $("settle-out");
  out.replaceChildren();
  if (!answer) return;
  if (!answer.steps.length) { out.append(el("p", { class: "muted" }, t("No count yet."))); return; }
  const items = answer.steps.map((step) => {
    const what = step.card ? tx("{name} lays {card} — {count}", { name: step.name, card: cardChip(step.card), count: step.count })
      : [`${step.name}: ${pegAction(step.action)}`];
    const item = el("li", {}, ...what);
    const reasons = step.items.map((i) => t("{name} for {points}", { name: itemName(i.name), points: i.points })).join(", ");
    if (step.points) item.append(" ", el("span", { class: "pts" }, `${reasons} (${num(step.points)})`));
    if (step.frame) item.append(el("img", { src: step.frame, alt: t("the frame {card} was seen in", { card: step.card }), loading: "lazy" }));
    return item;
  });
  out.append(el("p", {}, answer.finished
    ? tn("Count {count} (finished): {n} point pegged", "Count {count} (finished): {n} points pegged", answer.points, { count: answer.count })
    : tn("Count {count}: {n} point pegged", "Count {count}: {n} points pegged", answer.points, { count: answer.count })),
    el("ol", {}, ...items));
}
$("settle").addEventListener("toggle", renderSettle);

function connect() {
  const source = new EventSource(`/api/games/${GAME}/events`);
  // connected again (after a dropped stream or a server restart): a page that is current is
  // not sent its state again, so the indicator cannot wait for one
  source.addEventListener("open", () => $("live").classList.add("on"));
  source.addEventListener("state", (event) => {
    $("live").classList.add("on");
    render(JSON.parse(event.data));
  });
  source.addEventListener("camera", (event) => { if (serverCamera) serverCamera.show(JSON.parse(event.data)); });
  source.addEventListener("error", () => $("live").classList.remove("on"));
}

(async () => {
  const first = await api("GET", `/api/games/${GAME}`);
  if (first) render(first);
  if (serverCamera) await serverCamera.follow();
  connect();
})();
