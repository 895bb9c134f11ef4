// folio's Decap CMS page: it keeps the API key in sessionStorage (as the
// media admin UI does), adds it to every call Decap's proxy backend makes
// to folio, and only then loads Decap, whose URL folio writes into this
// script tag's data-decap.
"use strict";
(function () {
  const KEY = "folio.apiKey";
  // An editor signed in with a provider (docs/editors.md) has a session
  // cookie instead of a key: its writes carry the session's CSRF token.
  let csrf = "";
  const RPC = new URL("/api/v1/decap", location.href).href;
  // config.yml names the private types' fields only to a key with
  // content:read: Decap's fetch of it carries the key too.
  const CONFIG = new URL("config.yml", location.href).href;
  const self = document.currentScript;
  const decapURL = self && self.dataset.decap;

  function keyed(input) {
    const u = typeof input === "string" ? input : input instanceof URL ? input.href : input && input.url;
    if (!u) return false;
    try {
      const href = new URL(u, location.href).href;
      return href === RPC || href === CONFIG;
    } catch (_) {
      return false;
    }
  }

  // Decap's proxy protocol says nothing of the version of a file an
  // editor opened, so a save could not tell a file someone changed
  // meanwhile: the page keeps the id of the version each opened file's
  // form holds (getEntry's file.id, unpublishedEntryDataFile's id, the
  // base persistEntry answers for what it saved) and sends it with each
  // save as the file's base. folio then merges the save with what
  // changed since, or refuses it, never writes over it (docs/decap.md).
  const bases = new Map(); // Decap's path → id ("": no file was there)

  function parse(text) {
    try {
      return JSON.parse(text);
    } catch (_) {
      return null;
    }
  }

  // withBases adds the bases it knows to a persistEntry or deleteFiles
  // call's body.
  function withBases(call) {
    const d = call && (call.action === "deleteFiles" || call.action === "deleteFile") && call.params;
    if (d) {
      const bs = {};
      for (const p of (d.paths || []).concat(d.path ? [d.path] : [])) if (bases.has(p)) bs[p] = bases.get(p);
      d.bases = bs;
      return JSON.stringify(call);
    }
    const p = call && call.action === "persistEntry" && call.params;
    if (!p) return null;
    const files = (p.dataFiles || []).concat(p.entry ? [p.entry] : []);
    for (const f of files) {
      if (f && typeof f.path === "string" && !("base" in f) && bases.has(f.path)) f.base = bases.get(f.path);
    }
    return JSON.stringify(call);
  }

  // remember takes the bases an answer gives.
  async function remember(call, res) {
    const a = call && call.action;
    if ((a === "deleteFiles" || a === "deleteFile") && call.params) {
      for (const p of (call.params.paths || []).concat(call.params.path ? [call.params.path] : [])) bases.set(p, "");
      return;
    }
    if (a !== "getEntry" && a !== "unpublishedEntryDataFile" && a !== "persistEntry") return;
    const v = await res.clone().json().catch(() => null);
    if (!v) return;
    if (a === "getEntry" && v.file && typeof v.file.path === "string") bases.set(v.file.path, v.file.id || "");
    if (a === "unpublishedEntryDataFile" && typeof v.id === "string" && call.params) bases.set(call.params.path, v.id);
    if (a === "persistEntry" && Array.isArray(v.files)) for (const f of v.files) bases.set(f.path, f.base);
  }

  const fetch0 = window.fetch.bind(window);
  window.fetch = async function (input, init) {
    if (!keyed(input)) return fetch0(input, init);
    const headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
    let credentials = "omit";
    if (csrf) {
      headers.set("X-CSRF-Token", csrf);
      credentials = "same-origin";
    } else {
      headers.set("Authorization", "Bearer " + (sessionStorage.getItem(KEY) || ""));
    }
    const call = init && typeof init.body === "string" ? parse(init.body) : null;
    const body = withBases(call);
    const res = await fetch0(input, Object.assign({}, init, { headers, credentials }, body ? { body } : {}));
    if (res.status === 401) {
      // A key (or a session) that no longer works: ask again.
      sessionStorage.removeItem(KEY);
      location.reload();
    }
    if (!res.ok) return explained(res);
    await remember(call, res);
    return res;
  };

  // Decap's proxy backend shows an error answer's "error" as its message
  // ("Failed to persist entry: API_ERROR: <error>"); folio's answer has
  // the code there and the words in "message" and "fields". The editor
  // is given the words: which field, why, what to do. The status (Decap
  // reads a 404 as "not under the editorial workflow") and the code
  // ("code") stay.
  async function explained(res) {
    let body;
    try {
      body = await res.clone().json();
    } catch (_) {
      return res;
    }
    if (!body || typeof body.error !== "string") return res;
    const text = explain(body);
    const headers = new Headers(res.headers);
    headers.delete("Content-Length");
    return new Response(JSON.stringify(Object.assign({}, body, { error: text, code: body.error })),
      { status: res.status, statusText: res.statusText, headers });
  }

  function explain(body) {
    const msg = String(body.message || body.error).replace(/[.\s]+$/, "");
    switch (body.error) {
      case "VALIDATION": {
        const fs = Array.isArray(body.fields) ? body.fields : [];
        if (!fs.length) return "Not saved: " + msg + ". Correct it and save again.";
        const list = fs.map((f) => (f.path ? f.path + ": " : "") + f.message).join("; ");
        return "Not saved: " + list + ". Correct " + (fs.length > 1 ? "these fields" : "this field") + " and save again.";
      }
      case "PRECONDITION_FAILED":
      case "CONFLICT":
        return "Not saved: someone else changed this entry since you opened it (" + msg + "). " +
          "Copy your changes, reload the page to see theirs, and make your changes again.";
      case "GIT_UNAVAILABLE":
      case "STORAGE_UNAVAILABLE":
      case "INSUFFICIENT_STORAGE":
      case "BUSY":
        return "Not done: " + msg + ". Nothing was changed; try again in a moment.";
      case "FORBIDDEN":
        return "Not allowed: " + msg + ". Ask for a key that may do it.";
      case "PAYLOAD_TOO_LARGE":
        return "Too large: " + msg + ".";
    }
    return msg;
  }

  function start() {
    if (!decapURL || decapURL.indexOf("{{") === 0) {
      document.getElementById("folio-nodecap").hidden = false;
      return;
    }
    const s = document.createElement("script");
    s.src = decapURL;
    document.head.appendChild(s);
  }

  // session starts the editor with the sign-in session, if there is one;
  // else it offers the providers' buttons beside the key.
  async function session() {
    try {
      const res = await fetch0("/api/v1/auth/session", { credentials: "same-origin" });
      if (res.ok) {
        csrf = (await res.json()).csrfToken;
        start();
        return;
      }
      const pr = await fetch0("/api/v1/auth/providers", { credentials: "same-origin" });
      if (pr.ok) {
        const box = document.getElementById("folio-signin");
        const ret = encodeURIComponent(location.pathname);
        for (const p of (await pr.json()).providers) {
          const a = document.createElement("a");
          a.className = "folio-provider";
          a.href = p.login + "&return=" + ret;
          a.textContent = "Sign in with " + p.name;
          box.appendChild(a);
        }
        const or = document.createElement("p");
        or.textContent = "or, for a machine's key:";
        box.appendChild(or);
        box.hidden = false;
      }
    } catch (_) { /* no sign-in: the key form alone */ }
    login();
  }

  function login() {
    const form = document.getElementById("folio-login");
    form.hidden = false;
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const k = form.elements.key.value.trim();
      const err = document.getElementById("folio-error");
      err.textContent = "";
      // The key is checked with the RPC's cheapest call.
      const res = await fetch0(RPC, {
        method: "POST",
        headers: { "Authorization": "Bearer " + k, "Content-Type": "application/json" },
        body: JSON.stringify({ action: "info", params: {} }),
      });
      if (!res.ok) {
        let msg = res.status + "";
        try { msg = (await res.json()).message || msg; } catch (_) { /* not JSON */ }
        err.textContent = "This key does not open the editor: " + msg;
        return;
      }
      sessionStorage.setItem(KEY, k);
      form.hidden = true;
      start();
    });
  }

  function ready(fn) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn);
    else fn();
  }
  ready(() => (sessionStorage.getItem(KEY) ? start() : session()));
})();
