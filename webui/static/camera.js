/* The camera, three ways: the browser's camera (getUserMedia frames posted as JPEG at a bounded
   rate to the game's frame endpoint), the demo photo (the same endpoint, for machines without a
   camera), and the server camera (`cribcam serve --camera SOURCE`: the server reads the table
   and the page shows its status and play suggestions). Boxes are drawn over the picture. */
"use strict";
const FRAME_INTERVAL_MS = 700;  // at most ~1.4 frames a second: a 2-core laptop detects
const DEMO_PHOTO = "/static/demo/table.jpg";

/* The label drawn by a card's box: its role when the table is smoothed, else the reader's
   confidence. */
const boxLabel = (det) => (det.role ? `${det.card} ${roleName(det.role)}` : `${det.card} ${pct(det.confidence)}`);

/* A card's role on the table (the API's code: "starter", "play:bottom", "undecided"), in the
   page's language. */
function roleName(role) {
  const [kind, edge] = role.split(":");
  const name = {
    starter: () => tc("role", "starter"), play: () => tc("role", "play"), hand: () => tc("role", "hand"),
    crib: () => tc("role", "crib"), undecided: () => tc("role", "undecided"),
  }[kind];
  return (name ? name() : kind) + (edge ? ` ${edgeName(edge)}` : "");
}
function edgeName(edge) {
  const name = { bottom: () => tc("edge", "bottom"), top: () => tc("edge", "top"), left: () => tc("edge", "left"),
    right: () => tc("edge", "right") }[edge];
  return name ? name() : edge;
}

/* Boxes in picture pixels, on a canvas laid over a picture `width` × `height`. With
   `labelPx` (the canvas's width on the screen → the labels' height there, in CSS pixels) each
   label is that tall on the screen whatever the picture's resolution, on a dark ground. */
function drawBoxes(canvas, width, height, cards, label = boxLabel, labelPx = null) {
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, width, height);
  const scale = width / (canvas.clientWidth || width);  // picture pixels per screen pixel
  const size = labelPx ? labelPx(width / scale) * scale : Math.max(14, width / 40);
  ctx.lineWidth = Math.max(2, width / 400, labelPx ? 3 * scale : 0);
  ctx.font = `${labelPx ? "bold " : ""}${Math.round(size)}px system-ui`;
  const colour = (det) => (det.role === "undecided" ? "#ffb300" : "#00e676");
  for (const det of cards) {
    const [x1, y1, x2, y2] = det.box;
    ctx.strokeStyle = colour(det);
    ctx.strokeRect(x1, y1, x2 - x1, y2 - y1);
  }
  const placed = [];  // the big labels drawn so far: a row's overlapping cards must not hide each other's
  for (const det of cards) {  // over every box: no box line crosses a name
    ctx.fillStyle = colour(det);
    if (labelPx) groundedLabel(ctx, label(det), det.box, size, colour(det), placed);
    else ctx.fillText(label(det), det.box[0], Math.max(det.box[1] - 4, 14));
  }
}

/* A label on its box, else beside it (above, below, left, right) where it covers the fewest of
   the labels already `placed`, on a dark ground inside the picture: it reads over any cloth. */
function groundedLabel(ctx, text, box, size, colour, placed) {
  const [x1, y1, x2, y2] = box;
  const pad = size * 0.2;
  const w = ctx.measureText(text).width + 2 * pad;
  const h = size * 1.2;
  const [cx, cy] = [(x1 + x2 - w) / 2, (y1 + y2 - h) / 2];
  const inside = ([x, y]) => [Math.min(Math.max(x, 0), ctx.canvas.width - w), Math.min(Math.max(y, 0), ctx.canvas.height - h)];
  const overlap = ([x, y]) => placed.reduce((sum, r) =>
    sum + Math.max(0, Math.min(x + w, r.x + r.w) - Math.max(x, r.x)) * Math.max(0, Math.min(y + h, r.y + r.h) - Math.max(y, r.y)), 0);
  const spots = [[cx, cy], [cx, y1 - h], [cx, y2], [x1 - w, cy], [x2, cy]].map(inside);
  const costs = spots.map(overlap);
  const [x, y] = spots[costs.indexOf(Math.min(...costs))];  // the first of the least covered
  placed.push({ x, y, w, h });
  ctx.fillStyle = "rgba(0, 0, 0, 0.75)";
  ctx.fillRect(x, y, w, h);
  ctx.fillStyle = colour;
  ctx.textBaseline = "middle";
  ctx.fillText(text, x + pad, y + h / 2);
}

/* The cards to draw over a picture: those read on it. A smoothed table keeps a card through a
   short gap (a hand over it) with `in_frame` false; its box is where an earlier picture had it,
   so it is listed beside the picture but not drawn on this one. */
function overlayCards(cards) {
  return cards.filter((card) => card.in_frame !== false);
}

/* A word when the frame cannot be read surely: its card indices are too few pixels (the
   server judges: `small_indices`, from the cards' median index size `index_px`), or a card was
   seen only at an index the picture's edge cuts off (`cut_at_edge`), which is not read. */
function frameHints(answer) {
  let hints = "";
  if (answer.small_indices) {
    hints += " " + t("The card corners are only about {size} px tall: move the camera closer or give it a higher resolution, or some cards will be missed or misread.",
      { size: Math.round(answer.index_px) });
  }
  if (answer.cut_at_edge) {
    hints += " " + t("A card at the edge of the picture is cut off and not read: move the camera so every card is in view.");
  }
  return hints;
}

/* POST JPEG bytes; the JSON answer (or an error naming the HTTP status) and whether it is ok. */
async function postJpeg(url, blob) {
  const response = await fetch(url, { method: "POST", headers: { "Content-Type": "image/jpeg" }, body: blob });
  const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  return { ok: response.ok, status: response.status, answer };
}

const postFrame = (gameId, blob, query = "") => postJpeg(`/api/games/${gameId}/frame${query}`, blob);

/* A card the camera misread, kept for the deck in use's next tune: the frame's own bytes and
   one corner index's box in it (the server cuts the patch as enrolment does). */
function postCorrection(card, box, picture) {
  const inside = box.map((v, i) => Math.min(Math.max(v, 0), i % 2 ? picture.height : picture.width));
  const query = new URLSearchParams({ card, box: inside.join(",") });
  return postJpeg(`/api/decks/corrections?${query}`, picture.blob);
}

class Camera {
  constructor(gameId, video, overlay, status, onAnswer, onUnavailable) {
    this.gameId = gameId;
    this.video = video;
    this.overlay = overlay;
    this.status = status;
    this.onAnswer = onAnswer;
    this.onUnavailable = onUnavailable;
    this.running = false;
    this.busy = false;
    this.latencies = [];  // the last frames' times from grabbing to the overlay drawn, ms
    this.interval = FRAME_INTERVAL_MS;  // table mode reads more often
    this.label = boxLabel;
    this.query = "";  // "?table=1": table mode applies what the camera sees
    this.labelPx = null;  // table mode's labels read from across the table (see drawBoxes)
  }
  say(text) { this.status.textContent = text; }
  supported() {
    if (!window.isSecureContext) {
      this.say(t("This browser only allows the camera on a secure page (HTTPS). Start the server with `cribcam serve --lan` and open the https:// address it prints (accept the self-signed certificate once), or use the page on the host computer at 127.0.0.1."));
      return false;
    }
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      this.say(t("This browser has no camera access (getUserMedia). Enter the cards with the picker."));
      return false;
    }
    return true;
  }
  /* Whether this device has a camera at all (without asking for permission). */
  async available() {
    if (!window.isSecureContext || !navigator.mediaDevices || !navigator.mediaDevices.enumerateDevices) return false;
    const devices = await navigator.mediaDevices.enumerateDevices().catch(() => []);
    return devices.some((d) => d.kind === "videoinput");
  }
  async start() {
    if (this.running) return;
    if (!this.supported()) { this.onUnavailable(); return; }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: "environment", width: { ideal: 1920 }, height: { ideal: 1080 } },
        audio: false,
      });
      this.video.srcObject = stream;
      this.video.hidden = false;  // a page may keep it hidden until there is a picture
      await this.video.play();
    } catch (error) {
      // NotFoundError: there is no camera at all (refused is only NotAllowedError)
      if (error.name === "NotFoundError" || error.name === "OverconstrainedError") {
        this.say(t("No camera found: enter the cards with the picker, or try the demo photo."));
      } else if (error.name === "NotAllowedError") {
        this.say(t("The camera was refused: allow it in the browser's site settings, enter the cards with the picker, or try the demo photo."));
      } else {
        this.say(t("The camera could not start ({error}): enter the cards with the picker, or try the demo photo.", { error: error.name }));
      }
      this.onUnavailable();
      return;
    }
    this.running = true;
    this.say(t("Camera on."));
    if (this.onStart) this.onStart();  // the page may offer something on the camera's first use
    this.loop();
  }
  /* Frames as fast as the server reads them, one in flight, at most one each `interval` ms:
     the next is grabbed as soon as the last is answered and the interval has passed. */
  async loop() {
    const run = (this.run = (this.run || 0) + 1);  // a restart ends the earlier loop
    while (this.running && run === this.run) {
      const started = performance.now();
      await this.sendFrame();
      const wait = Math.max(0, this.interval - (performance.now() - started));
      await new Promise((done) => { this.timer = setTimeout(done, wait); });
    }
  }
  stop() {
    this.running = false;
    clearTimeout(this.timer);
    const stream = this.video.srcObject;
    if (stream) for (const track of stream.getTracks()) track.stop();
    this.video.srcObject = null;
    if (this.onStop) this.onStop();  // the page's Start/Stop button follows
  }
  async sendFrame() {
    if (this.busy || !this.video.videoWidth) return;  // one frame in flight at a time
    this.busy = true;
    const grabbed = performance.now();
    try {
      const canvas = document.createElement("canvas");
      canvas.width = this.video.videoWidth;
      canvas.height = this.video.videoHeight;
      canvas.getContext("2d").drawImage(this.video, 0, 0);
      const blob = await new Promise((ok) => canvas.toBlob(ok, "image/jpeg", 0.8));
      const { ok, status, answer } = await postFrame(this.gameId, blob, this.query);
      if (!ok) {
        this.say(answer.error || t("frame refused ({status})", { status: String(status) }));
        if (status === 503) this.stop();
        return;
      }
      const cards = answer.table ? answer.table.cards : answer.cards || [];
      drawBoxes(this.overlay, this.video.videoWidth, this.video.videoHeight, overlayCards(cards), this.label,
        this.labelPx);
      const ms = Math.round(performance.now() - grabbed);
      this.latencies.push(ms);
      if (this.latencies.length > 50) this.latencies.shift();
      this.say(tn("Camera on: {n} card seen, {ms} ms from frame to overlay.",
        "Camera on: {n} cards seen, {ms} ms from frame to overlay.", cards.length, { ms }) + frameHints(answer));
      // the frame goes with its answer: a correction must cut exactly the pixels read
      this.onAnswer(answer, { blob, width: canvas.width, height: canvas.height });
    } catch (error) {
      this.say(t("Frame not sent: {error}", { error: String(error) }));
    } finally {
      this.busy = false;
    }
  }
}

/* Teaching the deck, offered when the camera starts while the base reader reads (no deck in
   use): a small banner linking to the enrol page in a new tab, so the game and its camera stay
   open here. Each device remembers (localStorage) once it is dismissed or a deck is taught on
   the enrol page, and never shows it again. */
const TEACH_OFFER_KEY = "cribcam-teach-offer";
const TEACH_PHOTOS = 4;  // the enrol page suggests as many

function teachingSettled() {
  try {
    return localStorage.getItem(TEACH_OFFER_KEY) !== null;
  } catch (error) {
    return true;  // storage refused (a private window's policy): offering it each time would nag
  }
}

function rememberTeaching(how) {
  try { localStorage.setItem(TEACH_OFFER_KEY, how); } catch (error) { /* the banner just returns */ }
}

/* Shows the banner as the first child of `host` unless a deck is in use (`deckInUse`), the
   offer is settled on this device or it is already shown; returns the banner or null. */
function offerTeaching(host, deckInUse) {
  if (deckInUse || teachingSettled() || document.getElementById("teach-offer")) return null;
  const dismiss = el("button", { type: "button", class: "teach-dismiss", "aria-label": t("Not now"),
    title: t("Not now") }, "×");
  const banner = el("div", { id: "teach-offer", class: "teach-offer", role: "note" },
    el("a", { href: "/enroll", target: "_blank", rel: "noopener" },
      t("Read your deck better: take {count} photos", { count: TEACH_PHOTOS })),
    dismiss);
  dismiss.addEventListener("click", () => { rememberTeaching("dismissed"); banner.remove(); });
  host.prepend(banner);
  return banner;
}

// a deck taught in another tab (the enrol page opened from the banner) settles it here too
window.addEventListener("storage", (event) => {
  if (event.key === TEACH_OFFER_KEY && event.newValue !== null) {
    const banner = document.getElementById("teach-offer");
    if (banner) banner.remove();
  }
});

/* The demo photo (a synthetic table rendered from the test deck) through the frame endpoint
   (without `?table=1`: it is read and drawn, never applied to the game); `label` and `labelPx`
   draw its cards as drawBoxes does. */
async function tryDemoPhoto(gameId, img, overlay, say, label = boxLabel, labelPx = null) {
  say(t("Reading the demo photo…"));
  const blob = await (await fetch(DEMO_PHOTO)).blob();
  img.src = URL.createObjectURL(blob);
  img.hidden = false;
  await img.decode();
  const { ok, status, answer } = await postFrame(gameId, blob);
  if (!ok) {
    drawBoxes(overlay, img.naturalWidth, img.naturalHeight, []);
    say(answer.error || t("the demo photo was refused ({status})", { status: String(status) }));
    return null;
  }
  const cards = answer.cards || [];
  drawBoxes(overlay, img.naturalWidth, img.naturalHeight, cards, label, labelPx);
  say((cards.length
    ? tn("The demo photo: {n} card read: {cards}.", "The demo photo: {n} cards read: {cards}.", cards.length,
      { cards: cards.map((c) => cardLabel(c.card)).join(" ") })
    : t("The demo photo: 0 cards read.")) + frameHints(answer));
  return answer;
}

/* The server camera: its status, its latest frame with the table's roles, and the plays it
   saw for the seat whose turn it is, each applied only when a player taps it. */
class ServerCamera {
  constructor(gameId, els, apply) {
    this.gameId = gameId;
    this.els = els;  // { status, img, overlay, suggestions }
    this.apply = apply;
  }
  async follow() {
    const response = await fetch(`/api/games/${this.gameId}/camera`, { method: "POST" });
    if (response.ok) this.show(await response.json());
  }
  show(view) {
    const { status, img, overlay, suggestions } = this.els;
    if (!view.enabled) { status.textContent = view.detail; return; }
    const table = view.table;
    const cards = table ? table.cards.length : 0;
    let text = t("Server camera ({source}): {state}.", { source: view.source, state: view.state }) + ` ${view.detail || ""}`;
    if (view.model && table) text += " · " + tn("{n} card on the table", "{n} cards on the table", cards);
    if (table && table.undecided.length) text += " · " + t("undecided: {cards}", { cards: table.undecided.map((u) => `${u.cards.join(" ")} (${u.reason})`).join("; ") });
    if (table && table.conflicts.length) text += " · " + t("conflicts: {reasons}", { reasons: table.conflicts.map((c) => c.reason).join("; ") });
    if (!view.watching) text += " · " + t("the camera follows another game: reload this page to follow this one");
    status.textContent = text + frameHints(view.frame || {});
    if (view.frame) {
      img.hidden = false;
      const drawn = table ? overlayCards(table.cards) : [];
      img.onload = () => drawBoxes(overlay, view.frame.size[0], view.frame.size[1], drawn);
      img.src = `/api/camera/frame.jpg?r=${view.revision}`;
    }
    suggestions.replaceChildren(...(view.suggestions || []).map((s) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "primary";
      button.textContent = t("apply");
      button.addEventListener("click", () => this.apply(s.action));
      item.append(...tx("{edge} laid {card}", { edge: edgeName(s.edge), card: cardChip(s.card) }), " — ", button);
      return item;
    }));
  }
}

/* A card the camera sees, with a "wrong?" button that calls `onWrong(card)` (the card's
   object in the answer, with its `index_boxes`). A card kept through a gap has no index boxes in
   this frame, so nothing of it could be saved: its button waits until the camera sees it. */
function seenChip(card, onWrong) {
  const button = card.index_boxes.length
    ? el("button", { type: "button", class: "wrong", "aria-label": t("{card} is wrong", { card: card.card }),
        onclick: () => onWrong(card) }, t("wrong?"))
    : el("button", { type: "button", class: "wrong", disabled: "",
        title: t("not seen in this frame: hold the card in view") }, t("wrong?"));
  return el("span", { class: "seen" }, cardChip(card.card), button);
}

/* "Ann's hand", "Bob's play": a seat's cards of a role. */
function roleOf(name, kind) {
  switch (kind) {
    case "hand": return t("{name}'s hand", { name });
    case "crib": return t("{name}'s crib", { name });
    case "play": return t("{name}'s play", { name });
    default: return `${name}: ${roleName(kind)}`;
  }
}

/* What the page's camera sees, role by role, and the show of each complete hand beside the
   starter (from the frame endpoint's smoothed `table`); each card can be marked misread. */
function renderCameraTable(list, table, seatName, onWrong) {
  list.replaceChildren();
  if (!table) return;
  const byCard = new Map(table.cards.map((c) => [c.card, c]));
  const chip = (card) => seenChip(byCard.get(card), onWrong);  // every card is in `cards`
  const who = (edge) => (table.seats[edge] === undefined ? edgeName(edge) : seatName(table.seats[edge]));
  for (const show of table.shows) {
    const owner = show.seat === null ? edgeName(show.edge) : seatName(show.seat);
    const items = show.items.map((i) => `${itemName(i.name)} ${num(i.points)}`).join(", ");
    list.append(el("li", { class: "camera-show", "data-role": show.role, "data-edge": show.edge,
      "data-cards": show.hand.join(" "), "data-total": String(show.total) },
      `${show.role === "crib" ? t("{name}'s crib", { name: owner }) : t("{name}'s hand", { name: owner })}: `, ...show.hand.map(chip), " + ", chip(show.starter),
      " = ", el("b", {}, num(show.total)), items ? ` (${items})` : ""));
  }
  const shown = new Set(table.shows.flatMap((s) => s.hand));
  const rest = table.cards.filter((c) => !shown.has(c.card) && c.role !== "starter");
  const roles = new Map();
  for (const c of rest) roles.set(c.role, [...(roles.get(c.role) || []), c.card]);
  for (const [role, cards] of roles) {
    const [kind, edge] = role.split(":");
    const label = edge ? roleOf(who(edge), kind) : roleName(kind);
    list.append(el("li", { "data-role": role, "data-cards": cards.join(" ") }, `${label}: `,
      ...cards.map(chip)));
  }
  if (table.starter && !table.shows.length) {
    list.append(el("li", { "data-role": "starter", "data-cards": table.starter }, `${tc("role", "starter")}: `,
      chip(table.starter)));
  }
}
