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

    function size(bytes) {
      const units = ["B", "KiB", "MiB", "GiB", "TiB"];
      let unit = 0;
      while (bytes >= 1024 && unit < units.length - 1) { bytes /= 1024; unit += 1; }
      return (unit ? bytes.toFixed(1) : String(bytes)) + " " + units[unit];
    }

    // A value as a line of text; the health's disks as "state: 3.2 GiB free of 14.6 GiB".
    function text(key, value) {
      if (key === "disks" && Array.isArray(value)) {
        return value.map((d) => d.use + ": " + size(d.free_bytes) + " free of " + size(d.size_bytes)).join("; ");
      }
      return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
    }

    function fill(table, object) {
      table.replaceChildren();
      for (const [key, value] of Object.entries(object || {})) {
        const row = table.insertRow();
        row.insertCell().textContent = key;
        row.insertCell().textContent = text(key, value);
      }
    }

    async function refresh() {
      try {
        const status = await (await fetch("/api/v1/status", {credentials: "same-origin"})).json();
        fill(document.getElementById("status"), status);
        document.getElementById("now").textContent = status.title || "";
        document.getElementById("upcoming").textContent = status.next ? "next: " + status.next : "";
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
    // A message: a text card (override_text) named as the override field says, else "message".
    document.getElementById("override-text-show").addEventListener("click",
      () => command(["override_text", document.getElementById("override-name").value || "message",
                     document.getElementById("override-text").value]));
    // The playlist: edited here, saved whole with the tag it was read with (If-Match), so an
    // edit made elsewhere meanwhile is reported, never overwritten.
    let playlist = {etag: null, items: [], editable: false, source: ""};
    const playlistMessage = document.getElementById("playlist-message");

    async function loadPlaylist(message) {
      const response = await fetch("/api/v1/playlist", {credentials: "same-origin"});
      const answer = await response.json();
      if (!response.ok) { playlistMessage.textContent = answer.error; return; }
      playlist = answer;
      drawPlaylist();
      playlistMessage.textContent = message || (playlist.editable ? "" :
        "kiosk.conf names no web.page_file: this list is kiosk.conf's, shown but not edited here.");
    }

    function button(text, id, action) {
      const element = document.createElement("button");
      element.textContent = text;
      element.id = id;
      element.addEventListener("click", action);
      return element;
    }

    function drawPlaylist() {
      const table = document.getElementById("playlist");
      table.replaceChildren();
      playlist.items.forEach((item, index) => {
        const row = table.insertRow();
        const enabled = document.createElement("input");
        enabled.type = "checkbox";
        enabled.checked = item.enabled;
        enabled.id = "enabled-" + index;
        enabled.addEventListener("change", () => { item.enabled = enabled.checked; });
        row.insertCell().append(enabled);
        const name = row.insertCell();
        name.textContent = item.title || item.path || "Card: " + item.text;
        name.title = item.path || item.text;
        name.className = "item-name";
        row.insertCell().textContent = [item.duration ? item.duration + " s" : "", item.gravity || ""].join(" ");
        const actions = row.insertCell();
        actions.append(
          button("\u2191", "up-" + index, () => move(index, -1)),
          button("\u2193", "down-" + index, () => move(index, 1)),
          button("\u2715", "remove-" + index, () => { playlist.items.splice(index, 1); drawPlaylist(); }));
      });
    }

    function move(index, step) {
      const other = index + step;
      if (other < 0 || other >= playlist.items.length) return;
      [playlist.items[index], playlist.items[other]] = [playlist.items[other], playlist.items[index]];
      drawPlaylist();
    }

    async function savePlaylist() {
      const response = await fetch("/api/v1/playlist", {
        method: "PUT", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf, "If-Match": playlist.etag},
        body: JSON.stringify({items: playlist.items}),
      });
      const answer = await response.json();
      if (response.ok) {
        playlist = answer;
        drawPlaylist();
        playlistMessage.textContent = "Saved: playing the new list.";
        schedule.etag = answer.etag;   // one file holds both
      } else if (response.status === 412) {
        await loadPlaylist("Changed elsewhere meanwhile: here is the current list; edit it again.");
      } else {
        playlistMessage.textContent = "Not saved: " + answer.error;
      }
    }

    document.getElementById("add").addEventListener("click", () => {
      const path = document.getElementById("add-path").value.trim();
      if (!path) return;
      playlist.items.push({path: path, enabled: true});
      document.getElementById("add-path").value = "";
      drawPlaylist();
    });
    document.getElementById("add-card-button").addEventListener("click", () => {
      const words = document.getElementById("add-card").value.trim();
      if (!words) return;
      playlist.items.push({text: words, enabled: true});
      document.getElementById("add-card").value = "";
      drawPlaylist();
    });
    // Uploads go in 8 MiB pieces, each appended where kiosk says it has got to: a dropped
    // connection costs one piece, and the upload goes on from kiosk's count. It gives up when that
    // count has not moved for a minute (not after so many failures: a busy kiosk may answer 409
    // for a while as a cut connection's last bytes land, and each of those answers moves it on).
    const uploadMessage = document.getElementById("upload-message");
    const piece = 8 * 1024 * 1024;
    const patience = 60 * 1000;
    const pause = (ms) => new Promise((done) => setTimeout(done, ms));

    async function upload(file) {
      const headers = {"Content-Type": "application/json", "X-CSRF-Token": csrf};
      const begun = await fetch("/api/v1/uploads", {method: "POST", credentials: "same-origin", headers: headers,
                                                    body: JSON.stringify({name: file.name, size: file.size})});
      const start = await begun.json();
      if (!begun.ok) { uploadMessage.textContent = "Not uploaded: " + start.error; return; }
      let offset = start.offset;
      // Progress is kiosk's count passing the furthest it has been (a count that fell back and
      // came up again has not moved on).
      let furthest = offset;
      let moved = Date.now();
      const goTo = (where) => {
        if (where > furthest) { furthest = where; moved = Date.now(); }
        offset = where;
      };
      while (Date.now() - moved < patience) {
        uploadMessage.textContent = "Uploading " + file.name + ": " + Math.floor(100 * offset / file.size) + " %";
        try {
          const response = await fetch("/api/v1/uploads/" + start.id, {
            method: "PATCH", credentials: "same-origin",
            headers: {"X-CSRF-Token": csrf, "Upload-Offset": String(offset)},
            body: file.slice(offset, Math.min(file.size, offset + piece)),
          });
          const answer = await response.json();
          if (response.status === 201) {
            playlist.items.push({path: answer.path, enabled: true});
            drawPlaylist();
            uploadMessage.textContent = "Uploaded " + file.name + ": added to the list; Save to play it.";
            return;
          }
          if (response.ok) {
            const before = offset;
            goTo(answer.offset);
            if (offset <= before) await pause(500);   // taken, but kiosk's count did not move on
            continue;
          }
          if (response.status === 409) {
            // A cut connection's last bytes are still landing: go on from kiosk's count soon.
            goTo(answer.offset);
            await pause(500);
            continue;
          }
          uploadMessage.textContent = "Not uploaded: " + answer.error;
          return;
        } catch (error) {
          await pause(1000);
          const status = await fetch("/api/v1/uploads/" + start.id, {credentials: "same-origin"}).catch(() => null);
          const where = status && status.ok ? await status.json().catch(() => null) : null;   // cut mid-answer too
          if (where && where.done) {
            // The last piece landed but its answer was lost.
            playlist.items.push({path: where.path, enabled: true});
            drawPlaylist();
            uploadMessage.textContent = "Uploaded " + file.name + ": added to the list; Save to play it.";
            return;
          }
          if (where) goTo(where.offset);
        }
      }
      uploadMessage.textContent = "Not uploaded: kiosk got no further for a minute (" + Math.floor(100 * offset / file.size) + " % had arrived); try again.";
    }

    document.getElementById("upload").addEventListener("click", () => {
      const file = document.getElementById("upload-file").files[0];
      if (file) upload(file);
    });
    document.getElementById("save").addEventListener("click", savePlaylist);
    document.getElementById("revert").addEventListener("click", () => loadPlaylist());
    // The schedule's dry run and proof of play: read once a minute (they change slowly).
    async function loadReports() {
      const schedule = await (await fetch("/api/v1/schedule", {credentials: "same-origin"})).json();
      document.getElementById("schedule").textContent = schedule.text || schedule.error;
      const plays = await fetch("/api/v1/plays", {credentials: "same-origin"});
      const answer = await plays.json();
      const table = document.getElementById("plays");
      table.replaceChildren();
      if (!plays.ok) { table.insertRow().insertCell().textContent = answer.error; return; }
      const head = table.insertRow();
      for (const name of ["day", "item", "title", "plays", "completed", "seconds"]) head.insertCell().textContent = name;
      for (const row of answer.rows) {
        const line = table.insertRow();
        const as = row.played_as && row.played_as !== "loop" ? ` [${row.played_as}${row.by ? " " + row.by : ""}]` : "";
        for (const value of [row.day, row.item, (row.title || row.source) + as, row.plays, row.completed, Math.round(row.seconds)]) {
          line.insertCell().textContent = String(value);
        }
      }
    }

    // The schedule's entries, inserts and the screen's on-windows (display.power): kiosk.conf's
    // keys as text fields, judged by kiosk's rules when saved (an error names the field's line in
    // the page's file). No window: the screen is always on.
    const scheduleKeys = {
      entries: ["name", "playlist", "days", "from", "to", "dates_from", "dates_to", "priority"],
      inserts: ["name", "at", "days", "dates_from", "dates_to", "item", "playlist"],
      power: ["days", "from", "to", "dates_from", "dates_to"],
    };
    let schedule = {etag: null, schedule: {entries: [], inserts: [], power: []}};
    // kiosk.conf's windows are shown but sent back only once edited here: a save of an entry
    // does not freeze them into the page's file.
    let powerEdited = false;
    const scheduleMessage = document.getElementById("schedule-message");

    async function loadSchedule(message) {
      const response = await fetch("/api/v1/schedule/entries", {credentials: "same-origin"});
      const answer = await response.json();
      if (!response.ok) { scheduleMessage.textContent = answer.error; return; }
      schedule = answer;
      powerEdited = false;
      drawSchedule();
      scheduleMessage.textContent = message || "";
    }

    function drawSchedule() {
      schedule.schedule.power = schedule.schedule.power || [];
      for (const kind of ["entries", "inserts", "power"]) {
        const table = document.getElementById("schedule-" + kind);
        table.replaceChildren();
        const head = table.insertRow();
        for (const key of scheduleKeys[kind]) head.insertCell().textContent = key;
        schedule.schedule[kind].forEach((row, index) => {
          const line = table.insertRow();
          for (const key of scheduleKeys[kind]) {
            const input = document.createElement("input");
            input.value = row[key] || "";
            input.id = kind + "-" + index + "-" + key;
            input.size = key === "name" || key === "item" ? 12 : 6;
            input.addEventListener("change", () => { row[key] = input.value; powerEdited ||= kind === "power"; });
            line.insertCell().append(input);
          }
          line.insertCell().append(button("\u2715", kind + "-remove-" + index,
            () => { schedule.schedule[kind].splice(index, 1); powerEdited ||= kind === "power"; drawSchedule(); }));
        });
      }
    }

    async function saveSchedule() {
      const response = await fetch("/api/v1/schedule/entries", {
        method: "PUT", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf, "If-Match": schedule.etag},
        body: JSON.stringify({
          entries: schedule.schedule.entries, inserts: schedule.schedule.inserts,
          power: powerEdited || schedule.power_source === "page" ? schedule.schedule.power : null,
        }),
      });
      const answer = await response.json();
      if (response.ok) {
        schedule = answer;
        powerEdited = false;
        drawSchedule();
        scheduleMessage.textContent = "Saved: the schedule follows it.";
        playlist.etag = answer.etag;   // one file holds both
        loadReports();
      } else if (response.status === 412) {
        await loadSchedule("Changed elsewhere meanwhile: here is the current schedule; edit it again.");
      } else {
        scheduleMessage.textContent = "Not saved: " + answer.error;
      }
    }

    document.getElementById("add-entry").addEventListener("click",
      () => { schedule.schedule.entries.push({playlist: "default", days: "daily", from: "00:00", to: "24:00"}); drawSchedule(); });
    document.getElementById("add-insert").addEventListener("click",
      () => { schedule.schedule.inserts.push({at: "12:00", days: "daily"}); drawSchedule(); });
    document.getElementById("add-window").addEventListener("click",
      () => { schedule.schedule.power.push({days: "daily", from: "07:00", to: "22:00"}); powerEdited = true; drawSchedule(); });
    document.getElementById("save-schedule").addEventListener("click", saveSchedule);
    loadSchedule();

    async function loadLog() {
      const answer = await (await fetch("/api/v1/log", {credentials: "same-origin"})).json();
      document.getElementById("log-errors").textContent = answer.errors_last_hour + " errors in the last hour";
      const table = document.getElementById("log");
      table.replaceChildren();
      for (const line of answer.lines.slice(-100).reverse()) {
        const row = table.insertRow();
        row.className = "log-" + line.level;
        for (const value of [line.at.slice(11, 19), line.level, line.message]) row.insertCell().textContent = value;
      }
    }

    loadReports();
    setInterval(loadReports, 60000);
    loadLog();
    setInterval(loadLog, 10000);
    loadPlaylist();
    refresh();
    setInterval(refresh, 2000);
    setInterval(refreshScreen, 2000);
    """#

    public static let style = """
    body { font-family: sans-serif; margin: 0; background: #f4f4f4; color: #111; }
    header { display: flex; gap: 1em; align-items: center; padding: 0.5em 1em; background: #222; color: #fff; }
    header h1 { font-size: 1.2em; margin: 0; }
    #upcoming { color: #bbb; }
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
    .wide { grid-column: 1 / -1; }
    pre { overflow-x: auto; }
    #log td:nth-child(-n+2), #plays td { white-space: nowrap; word-break: normal; }
    .error, .log-error, .log-critical { color: #a00; }
    .log-warning { color: #850; }
    .hint { color: #555; font-size: 0.9em; }

    """
}
