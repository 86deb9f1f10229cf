/* The host's list of paired devices: unpair one. */
"use strict";
for (const time of document.querySelectorAll("#devices time")) {
  time.textContent = new Date(Number(time.dataset.paired) * 1000).toLocaleString(LANG, { dateStyle: "medium", timeStyle: "short" });
}
for (const button of document.querySelectorAll("button.unpair")) {
  button.addEventListener("click", async () => {
    const response = await fetch(`/api/devices/${encodeURIComponent(button.dataset.device)}`, { method: "DELETE" });
    if (response.ok) {
      button.closest("li").remove();
      return;
    }
    const answer = await response.json().catch(() => ({}));
    document.getElementById("devices-error").textContent = answer.error || `HTTP ${response.status}`;
  });
}
