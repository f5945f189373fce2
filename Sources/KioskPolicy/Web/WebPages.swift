/// The web page's HTML (#36): plain pages with a little JavaScript from `/app.js` (no inline
/// script, so the CSP can forbid every other), readable on a phone. Everything that comes from
/// outside (a title, a message) goes through `WebForm.html`; the live figures are filled in by
/// the script with `textContent`, never as HTML.
public enum WebPages {
    /// The headers every page and API answer carries: no framing (clickjacking), scripts and
    /// styles from this box only, no referrer sent elsewhere.
    public static let securityHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' blob:; script-src 'self'; style-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "same-origin"),
    ]

    public static func login(message: String? = nil) -> String {
        page(title: "kiosk: log in", csrf: nil, body: """
        <main class="login">
        <h1>kiosk</h1>
        \(message.map { "<p class=\"error\" id=\"message\">\(WebForm.html($0))</p>" } ?? "")
        <form method="post" action="/login">
        <label>Password <input type="password" name="password" id="password" autocomplete="current-password" autofocus required></label>
        <button type="submit" id="login">Log in</button>
        </form>
        <p class="hint">The password is in the state directory's <code>web-password</code> file (printed once in the
        journal at first start), unless kiosk.conf's <code>web.password_hash</code> sets one.</p>
        </main>
        """)
    }

    /// The console: status, the real screen, controls. `title`: what plays now, shown before the
    /// script's first refresh.
    public static func console(csrf: String, title: String?) -> String {
        page(title: "kiosk", csrf: csrf, body: """
        <header><h1>kiosk</h1><span id="now">\(WebForm.html(title ?? ""))</span><span id="upcoming"></span>
        <form method="post" action="/logout"><input type="hidden" name="csrf" value="\(WebForm.html(csrf))">
        <button type="submit" id="logout">Log out</button></form></header>
        <main>
        <section><h2>Screen</h2><img id="screen" alt="what the screen shows" src="/api/v1/screenshot"></section>
        <section><h2>Controls</h2>
        <div class="row"><button data-command='["previous"]'>Previous</button><button id="play" data-command='["play"]'>Play</button>
        <button id="pause" data-command='["pause"]'>Pause</button><button id="next" data-command='["next"]'>Next</button></div>
        <div class="row"><label>Item <input id="goto-index" type="number" min="0" value="0"></label><button id="goto">Go to</button></div>
        <div class="row"><label>Volume <input id="volume" type="range" min="0" max="100"></label>
        <button data-command='["mute","toggle"]'>Mute</button></div>
        <div class="row">Display <button data-command='["display_power","on"]'>On</button>
        <button data-command='["display_power","off"]'>Off</button><button data-command='["display_power","auto"]'>Auto</button></div>
        <div class="row"><label>Trigger <input id="trigger-name"></label><button id="trigger">Fire</button></div>
        <div class="row"><label>Override <input id="override-name"></label><button id="override">Start</button>
        <button data-command='["override_cancel"]'>End all</button></div>
        <div class="row"><label>Message <input id="override-text" maxlength="1000" placeholder="words on a card, as the override above (else message)"></label>
        <button id="override-text-show">Show</button></div>
        <p id="reply" role="status"></p>
        </section>
        <section><h2>Playlist</h2><table id="playlist"></table>
        <div class="row"><label>Add <input id="add-path" placeholder="/srv/media/a.mp4 or https://..."></label>
        <button id="add">Add</button></div>
        <div class="row"><label>Add a card <input id="add-card" placeholder="Words kiosk draws, white on black"></label>
        <button id="add-card-button">Add card</button></div>
        <div class="row"><label>Upload <input id="upload-file" type="file" accept="video/*,image/*"></label>
        <button id="upload">Upload</button></div>
        <p id="upload-message" role="status"></p>
        <div class="row"><button id="save">Save</button><button id="revert">Reload</button></div>
        <p id="playlist-message" role="status"></p>
        </section>
        <section><h2>Status</h2><table id="status"></table></section>
        <section><h2>Health</h2><table id="health"></table></section>
        <section class="wide"><h2>Log, the last hour</h2><p id="log-errors"></p><table id="log"></table></section>
        <section class="wide"><h2>Schedule</h2>
        <h3>Entries</h3><table id="schedule-entries"></table><button id="add-entry">Add entry</button>
        <h3>Inserts</h3><table id="schedule-inserts"></table><button id="add-insert">Add insert</button>
        <h3>Screen on (none: always)</h3><table id="schedule-power"></table><button id="add-window">Add window</button>
        <div class="row"><button id="save-schedule">Save schedule</button></div>
        <p id="schedule-message" role="status"></p>
        <h3>The next 7 days</h3><pre id="schedule"></pre></section>
        <section class="wide"><h2>Proof of play</h2><p><a href="/api/v1/plays.csv" id="plays-csv" download>Download CSV</a></p>
        <table id="plays"></table></section>
        </main>
        """)
    }

    static func page(title: String, csrf: String?, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(csrf.map { "<meta name=\"csrf\" content=\"\(WebForm.html($0))\">" } ?? "")
        <title>\(WebForm.html(title))</title>
        <link rel="stylesheet" href="/app.css">
        \(csrf == nil ? "" : "<script src=\"/app.js\" defer></script>")
        </head><body>
        \(body)
        </body></html>

        """
    }
}
