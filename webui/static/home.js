/* The game list page: start a new game and open it. */
"use strict";
document.getElementById("new-game").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const players = Number(form.get("players"));
  const body = {
    players,
    target: Number(form.get("target")),
    variant: form.get("variant"),
    muggins: form.get("muggins") === "on",
    games_per_match: Number(form.get("games_per_match")) || 1,
  };
  const names = String(form.get("names") || "").split(",").map((n) => n.trim()).filter(Boolean);
  // no names given: the seats are named in the players' language ("Plads 1")
  body.names = names.length ? names : [...Array(players).keys()].map((seat) => t("Seat {number}", { number: seat + 1 }));
  const response = await fetch("/api/games", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) {
    document.getElementById("new-game-error").textContent = answer.error;
    return;
  }
  // table mode (the camera follows the deal) unless the player chose the form
  const onForm = event.submitter && event.submitter.value === "form";
  location.href = onForm ? `/games/${answer.id}` : `/games/${answer.id}/table`;
});

// Each variant has its standard length (five-card is a 61-point game); the player may still
// change "Game to" after choosing the variant.
const newGame = document.getElementById("new-game");
newGame.elements.variant.addEventListener("change", (event) => {
  newGame.elements.target.value = event.target.value === "five-card" ? "61" : "121";
});

// When each game was played, in the reader's own time and words.
for (const time of document.querySelectorAll(".games time")) {
  time.textContent = new Date(time.dateTime).toLocaleString(LANG, { dateStyle: "medium", timeStyle: "short" });
}
