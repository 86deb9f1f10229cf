/* A player's page: each game's time in the reader's own time and words. */
"use strict";
for (const time of document.querySelectorAll(".games time")) {
  time.textContent = new Date(time.dateTime).toLocaleString(LANG, { dateStyle: "medium", timeStyle: "short" });
}
