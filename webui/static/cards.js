/* Cards as text: "10H" -> "10♥"; the 52-card picker used for every manual entry; and `el`, the
   small element builder every page script uses. */
"use strict";
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
const SUIT_SYMBOL = Object.fromEntries(SUITS);

function cardLabel(card) {
  const suit = card.slice(-1);
  return card.slice(0, -1) + (SUIT_SYMBOL[suit] || suit);
}

/* Card names inside the server's sentences ("fifteen 5C+5S for 2", "seat 1 was not dealt KS")
   written the way the rest of the page writes cards: 5♣+5♠, K♠. */
function cardsInText(text) {
  return String(text).replace(/\b(10|[2-9AJQK])([SHDC])\b/g, (_, rank, suit) => rank + SUIT_SYMBOL[suit]);
}

function isRed(card) {
  const suit = card.slice(-1);
  return suit === "H" || suit === "D";
}

function cardChip(card) {
  const span = document.createElement("span");
  span.className = "card" + (isRed(card) ? " red" : "");
  span.textContent = cardLabel(card);
  return span;
}

/* A picker over a container: choose `wanted` cards, never one in `unavailable`. */
class CardPicker {
  constructor(container, onChange) {
    this.container = container;
    this.onChange = onChange;
    this.wanted = 1;
    this.chosen = [];
    this.buttons = new Map();
    for (const [suit, symbol] of SUITS) {
      const row = document.createElement("div");
      row.className = "picker-suit";
      row.setAttribute("aria-label", symbol);
      container.appendChild(row);
      for (const rank of RANKS) {
        const card = rank + suit;
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = cardLabel(card);
        button.dataset.card = card;
        button.setAttribute("aria-label", card);
        if (isRed(card)) button.classList.add("red");
        button.addEventListener("click", () => this.toggle(card));
        row.appendChild(button);
        this.buttons.set(card, button);
      }
    }
  }
  /* `hide`: leave the unavailable cards out (a compact grid of what is possible), not greyed. */
  reset(wanted, unavailable, { hide = false, chosen = [] } = {}) {
    this.wanted = wanted;
    this.chosen = chosen.slice();
    const blocked = new Set(unavailable);
    for (const [card, button] of this.buttons) {
      button.disabled = blocked.has(card);
      button.hidden = hide && blocked.has(card);
      button.classList.toggle("chosen", this.chosen.includes(card));
    }
    // a suit with nothing left to choose takes no room
    for (const row of this.container.children) row.hidden = [...row.children].every((b) => b.hidden);
    this.onChange(this.chosen);
  }
  toggle(card) {
    const at = this.chosen.indexOf(card);
    if (at >= 0) this.chosen.splice(at, 1);
    else {
      if (this.wanted === 1) this.chosen = [];
      if (this.chosen.length >= this.wanted) return;
      this.chosen.push(card);
    }
    for (const [c, button] of this.buttons) button.classList.toggle("chosen", this.chosen.includes(c));
    this.onChange(this.chosen, card);  // `card`: a tap changed it (reset passes none)
  }
}

/* An element with attributes (`onclick` is a listener, `class` the class name) and children. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "onclick") node.addEventListener("click", v);
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}
