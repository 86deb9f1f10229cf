/* Cards as text: "10H" -> "10♥"; scoring items as text in the page's language; the 52-card
   picker used for every manual entry; and `el`, the small element builder every page script
   uses. */
"use strict";
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
const SUIT_SYMBOL = Object.fromEntries(SUITS);

function cardLabel(card) {
  const suit = card.slice(-1);
  return card.slice(0, -1) + (SUIT_SYMBOL[suit] || suit);
}

/* A card as a screen reader says it, in the page's language: "ace of spades", "10 of hearts". */
function cardName(card) {
  const rank = card.slice(0, -1);
  const ranks = { A: () => tc("card", "ace"), J: () => tc("card", "jack"), Q: () => tc("card", "queen"),
    K: () => tc("card", "king") };
  return t("{rank} of {suit}", { rank: ranks[rank] ? ranks[rank]() : rank, suit: suitName(card.slice(-1)) });
}
function suitName(suit) {
  const suits = { S: () => t("spades"), H: () => t("hearts"), D: () => t("diamonds"), C: () => t("clubs") };
  return suits[suit] ? suits[suit]() : suit;
}

/* Card names inside the server's sentences ("fifteen 5C+5S for 2", "seat 1 was not dealt KS")
   written the way the rest of the page writes cards: 5♣+5♠, K♠. */
function cardsInText(text) {
  return String(text).replace(/\b(10|[2-9AJQK])([SHDC])\b/g, (_, rank, suit) => rank + SUIT_SYMBOL[suit]);
}

/* A scoring item's name (the API's English `name`, a code here) in the page's language. */
function itemName(name) {
  const sized = /^(run|flush) of (\d+)$/.exec(name);
  if (sized) {
    const n = Number(sized[2]);
    return sized[1] === "run" ? tc("item", "run of {n}", { n }) : tc("item", "flush of {n}", { n });
  }
  switch (name) {
    case "fifteen": return tc("item", "fifteen");
    case "pair": return tc("item", "pair");
    case "pair royal": return tc("item", "pair royal");
    case "double pair royal": return tc("item", "double pair royal");
    case "his nobs": return tc("item", "his nobs");
    case "go": return tc("item", "go");
    case "last card": return tc("item", "last card");
    default: return name;  // "15" and "31" in the play: numbers
  }
}

/* An item as the engine writes it in its logs ("pair 8C+8D for 2", "15 for 2"), in the page's
   language with suit symbols; anything else with suit symbols. */
function itemText(text) {
  const item = /^(.+?)(?: ((?:10|[2-9AJQK])[SHDC](?:\+(?:10|[2-9AJQK])[SHDC])*))? for (-?\d+)$/.exec(text);
  if (!item) return cardsInText(text);
  const [, name, cards, points] = item;
  if (!cards) return t("{name} for {points}", { name: itemName(name), points: Number(points) });
  return t("{name} {cards} for {points}", { name: itemName(name), cards: cardsInText(cards), points: Number(points) });
}

/* "Ann's hand", "Bob's crib". */
function showOf(name, what) {
  return what === "crib" ? t("{name}'s crib", { name }) : t("{name}'s hand", { name });
}

function isRed(card) {
  const suit = card.slice(-1);
  return suit === "H" || suit === "D";
}

function cardChip(card) {
  const span = document.createElement("span");
  span.className = "card" + (isRed(card) ? " red" : "");
  span.textContent = cardLabel(card);
  // a screen reader says "7 of hearts", not "7 black heart suit", in a button's name too
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", cardName(card));
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
    for (const [suit] of SUITS) {
      const row = document.createElement("div");
      row.className = "picker-suit";
      row.setAttribute("aria-label", suitName(suit));
      container.appendChild(row);
      for (const rank of RANKS) {
        const card = rank + suit;
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = cardLabel(card);
        button.dataset.card = card;
        button.setAttribute("aria-label", cardName(card));
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
