/* The cribbage board as SVG: one lane per side, rows of 30 holes in groups of five, running
   back and forth like a real board; front and back peg per side; skunk lines marked. */
"use strict";
const SVG_NS = "http://www.w3.org/2000/svg";
const PER_ROW = 30;

function svgEl(name, attrs, text) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

/* Front and back peg per side, replayed from the scoring events (as pegged: never below 0). */
function pegPositions(state) {
  const sides = state.scores.length;
  const front = new Array(sides).fill(0);
  const back = new Array(sides).fill(0);
  const sideOf = (seat) => (state.settings.players === 4 ? seat % 2 : seat);
  for (const event of state.events) {
    if (event.seat === null || event.for_interest || event.points === 0) continue;
    const side = sideOf(event.seat);
    back[side] = front[side];
    front[side] = Math.min(Math.max(front[side] + event.points, 0), state.settings.target);
  }
  return { front: state.scores.map((s) => Math.min(s, state.settings.target)), back };
}

function drawBoard(svg, state, names) {
  const target = state.settings.target;
  const rows = Math.ceil((target - 1) / PER_ROW);
  const sides = state.scores.length;
  const laneH = rows * 16 + 36;  // room under the holes for a label readable on a phone
  const width = 640;
  const height = sides * laneH + 26;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  svg.appendChild(svgEl("rect", { x: 0, y: 0, width, height, rx: 12, fill: "var(--board)" }));
  const holeX = (col) => 46 + col * 18 + Math.floor(col / 5) * 6;
  const place = (side, score) => {
    const top = 12 + side * laneH;
    if (score <= 0) return [20, top + 8];
    if (score >= target) return [width - 22, top + (rows * 16) / 2];
    const index = score - 1;
    const row = Math.floor(index / PER_ROW);
    let col = index % PER_ROW;
    if (row % 2 === 1) col = PER_ROW - 1 - col;
    return [holeX(col), top + 8 + row * 16];
  };
  const [skunk, double, triple] = skunkLines(state.settings);
  const pegs = pegPositions(state);
  const colours = ["var(--peg0)", "var(--peg1)", "var(--peg2)"];
  for (let side = 0; side < sides; side++) {
    for (let score = 1; score < target; score++) {
      const [x, y] = place(side, score);
      let r = 2.6;
      let fill = "var(--hole)";
      // a skunk line is a white ring, no player's peg colour (a red hole read as a red peg)
      const line = score === skunk || score === double || score === triple;
      if (line) { r = 4.2; fill = "#fff"; }
      svg.appendChild(svgEl("circle", { cx: x, cy: y, r, fill, ...(line ? { stroke: "var(--hole)", "stroke-width": 1.5 } : {}) }));
    }
    const [gx, gy] = place(side, target);
    svg.appendChild(svgEl("circle", { cx: gx, cy: gy, r: 6, fill: "var(--hole)" }));
    const [sx, sy] = place(side, 0);
    svg.appendChild(svgEl("circle", { cx: sx, cy: sy, r: 3, fill: "var(--hole)" }));
    for (const [which, score] of [["back", pegs.back[side]], ["front", pegs.front[side]]]) {
      const [x, y] = place(side, score);
      svg.appendChild(svgEl("circle", {
        cx: x, cy: y, r: which === "front" ? 6 : 4.5, fill: colours[side],
        stroke: "#fff", "stroke-width": 1.5, opacity: which === "front" ? 1 : 0.7,
        "data-side": side, "data-peg": which, "data-score": score,
      }));
    }
    const label = svgEl("text", {
      x: 8, y: 12 + side * laneH + rows * 16 + 24, "font-size": 28, "font-weight": 700, fill: "#fff",
      stroke: "#3b2410", "stroke-width": 3, "paint-order": "stroke",  // legible on the wood
    }, `${names[side]}: ${num(state.scores[side])}`);
    svg.appendChild(label);
  }
  const legend = [skunk && `S ${skunk}`, double && `SS ${double}`, triple && `SSS ${triple}`]
    .filter(Boolean).join("  ");
  svg.appendChild(svgEl("text", {
    x: width - 8, y: height - 6, "font-size": 17, fill: "#fff", "text-anchor": "end",
  }, t("skunk lines (white rings): {legend}", { legend })));
}

/* The hole a loser must pass to escape each skunk level (the line itself). */
function skunkLines(settings) {
  const standard = settings.target === 121 ? [91, 61] : [46, 31];
  return [
    settings.skunk_line || standard[0],
    settings.double_skunk_line || standard[1],
    settings.triple_skunk_line || null,
  ];
}
