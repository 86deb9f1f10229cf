/* The camera: getUserMedia frames posted as JPEG at a bounded rate to the game's frame
   endpoint; returned boxes drawn over the video. Needs a secure context (HTTPS or localhost). */
"use strict";
const FRAME_INTERVAL_MS = 700;  // at most ~1.4 frames a second: a 2-core laptop detects

class Camera {
  constructor(gameId, video, overlay, status) {
    this.gameId = gameId;
    this.video = video;
    this.overlay = overlay;
    this.status = status;
    this.running = false;
    this.busy = false;
  }
  say(text) { this.status.textContent = text; }
  supported() {
    if (!window.isSecureContext) {
      this.say("This browser only allows the camera on a secure page (HTTPS). Start the server " +
        "with `cribcam serve --lan` and open the https:// address it prints (accept the " +
        "self-signed certificate once), or use the page on the host computer at 127.0.0.1.");
      return false;
    }
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      this.say("This browser has no camera access (getUserMedia). Enter the cards with the picker.");
      return false;
    }
    return true;
  }
  async start() {
    if (this.running || !this.supported()) return;
    try {
      const stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: "environment", width: { ideal: 1280 }, height: { ideal: 720 } },
        audio: false,
      });
      this.video.srcObject = stream;
      await this.video.play();
    } catch (error) {
      this.say(`The camera was refused (${error.name}): allow it in the browser's site ` +
        "settings, or enter the cards with the picker.");
      return;
    }
    this.running = true;
    this.say("Camera on.");
    this.timer = setInterval(() => this.sendFrame(), FRAME_INTERVAL_MS);
  }
  stop() {
    this.running = false;
    clearInterval(this.timer);
    const stream = this.video.srcObject;
    if (stream) for (const track of stream.getTracks()) track.stop();
    this.video.srcObject = null;
  }
  async sendFrame() {
    if (this.busy || !this.video.videoWidth) return;  // one frame in flight at a time
    this.busy = true;
    try {
      const canvas = document.createElement("canvas");
      canvas.width = this.video.videoWidth;
      canvas.height = this.video.videoHeight;
      canvas.getContext("2d").drawImage(this.video, 0, 0);
      const blob = await new Promise((ok) => canvas.toBlob(ok, "image/jpeg", 0.8));
      const response = await fetch(`/api/games/${this.gameId}/frame`, {
        method: "POST", headers: { "Content-Type": "image/jpeg" }, body: blob,
      });
      const answer = await response.json();
      if (!response.ok) {
        this.say(answer.error || `frame refused (${response.status})`);
        if (response.status === 503) this.stop();
        return;
      }
      this.draw(answer.cards || []);
    } catch (error) {
      this.say(`Frame not sent: ${error}`);
    } finally {
      this.busy = false;
    }
  }
  draw(cards) {
    const o = this.overlay;
    o.width = this.video.videoWidth;
    o.height = this.video.videoHeight;
    const ctx = o.getContext("2d");
    ctx.clearRect(0, 0, o.width, o.height);
    ctx.lineWidth = Math.max(2, o.width / 400);
    ctx.font = `${Math.max(14, o.width / 40)}px system-ui`;
    for (const det of cards) {
      const [x1, y1, x2, y2] = det.box;
      ctx.strokeStyle = "#00e676";
      ctx.strokeRect(x1, y1, x2 - x1, y2 - y1);
      ctx.fillStyle = "#00e676";
      ctx.fillText(`${det.card} ${Math.round(det.confidence * 100)}%`, x1, Math.max(y1 - 4, 14));
    }
  }
}
