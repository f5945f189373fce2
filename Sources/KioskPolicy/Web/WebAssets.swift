/// The web page's script and style sheet, served from `/app.js` and `/app.css`.
public enum WebAssets {
    /// Sends the control vocabulary's commands as the socket's JSON (`POST /api/v1/command`, with
    /// the session's CSRF token) and refreshes the status, the health and the screenshot every 2 s.
    /// Values are written with `textContent`: a title holding markup stays text.
    public static let script = #"""
    "use strict";
    const csrf = document.querySelector('meta[name="csrf"]').content;
    const reply = document.getElementById("reply");

    async function command(words) {
      const response = await fetch("/api/v1/command", {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
        body: JSON.stringify({command: words}),
      });
      if (response.status === 401) { location.href = "/login"; return null; }
      const answer = await response.json();
      reply.textContent = words.join(" ") + ": " + (answer.error || response.statusText);
      refresh();
      return answer;
    }

    function fill(table, object) {
      table.replaceChildren();
      for (const [key, value] of Object.entries(object || {})) {
        const row = table.insertRow();
        row.insertCell().textContent = key;
        row.insertCell().textContent = typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
      }
    }

    async function refresh() {
      try {
        const status = await (await fetch("/api/v1/status", {credentials: "same-origin"})).json();
        fill(document.getElementById("status"), status);
        document.getElementById("now").textContent = status.title || "";
        const volume = document.getElementById("volume");
        if (document.activeElement !== volume && typeof status.volume === "number") volume.value = status.volume;
        const health = await fetch("/api/v1/command", {
          method: "POST", credentials: "same-origin",
          headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
          body: JSON.stringify({command: ["get", "health"]}),
        });
        fill(document.getElementById("health"), (await health.json()).data);
      } catch (error) {
        reply.textContent = "kiosk does not answer: " + error;
      }
    }

    function refreshScreen() {
      const screen = document.getElementById("screen");
      const next = new Image();
      next.onload = () => { screen.src = next.src; };
      next.src = "/api/v1/screenshot?at=" + Date.now();
    }

    for (const button of document.querySelectorAll("button[data-command]")) {
      button.addEventListener("click", () => command(JSON.parse(button.dataset.command)));
    }
    document.getElementById("goto").addEventListener("click",
      () => command(["goto", Number(document.getElementById("goto-index").value)]));
    document.getElementById("volume").addEventListener("change",
      (event) => command(["volume", Number(event.target.value)]));
    document.getElementById("trigger").addEventListener("click",
      () => command(["trigger", document.getElementById("trigger-name").value]));
    document.getElementById("override").addEventListener("click",
      () => command(["override", document.getElementById("override-name").value]));
    refresh();
    setInterval(refresh, 2000);
    setInterval(refreshScreen, 2000);
    """#

    public static let style = """
    body { font-family: sans-serif; margin: 0; background: #f4f4f4; color: #111; }
    header { display: flex; gap: 1em; align-items: center; padding: 0.5em 1em; background: #222; color: #fff; }
    header h1 { font-size: 1.2em; margin: 0; }
    header form { margin-left: auto; }
    main { padding: 1em; display: grid; gap: 1em; grid-template-columns: repeat(auto-fit, minmax(18em, 1fr)); }
    main.login { max-width: 24em; margin: 3em auto; display: block; }
    section { background: #fff; padding: 0.8em; border-radius: 4px; }
    h2 { font-size: 1em; margin-top: 0; }
    #screen { width: 100%; background: #000; }
    .row { margin: 0.4em 0; display: flex; flex-wrap: wrap; gap: 0.4em; align-items: center; }
    button { padding: 0.5em 0.9em; font-size: 1em; }
    table { border-collapse: collapse; font-size: 0.9em; width: 100%; }
    td { border-bottom: 1px solid #ddd; padding: 0.2em 0.4em; vertical-align: top; word-break: break-word; }
    .error { color: #a00; }
    .hint { color: #555; font-size: 0.9em; }

    """
}
