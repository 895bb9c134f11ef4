// folio's Decap CMS page: it keeps the API key in sessionStorage (as the
// media admin UI does), adds it to every call Decap's proxy backend makes
// to folio, and only then loads Decap, whose URL folio writes into this
// script tag's data-decap.
"use strict";
(function () {
  const KEY = "folio.apiKey";
  const RPC = new URL("/api/v1/decap", location.href).href;
  const self = document.currentScript;
  const decapURL = self && self.dataset.decap;

  function keyed(input) {
    const u = typeof input === "string" ? input : input instanceof URL ? input.href : input && input.url;
    if (!u) return false;
    try {
      return new URL(u, location.href).href === RPC;
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

  // explained makes a refused save's answer say why: Decap shows the
  // answer's error, which is folio's code, not its message.
  async function explained(call, res) {
    const a = call && call.action;
    if (res.ok || (a !== "persistEntry" && a !== "deleteFiles" && a !== "deleteFile")) return res;
    const v = await res.clone().json().catch(() => null);
    if (!v || !v.message) return res;
    return new Response(JSON.stringify(Object.assign({}, v, { error: v.message, code: v.error })),
      { status: res.status, statusText: res.statusText, headers: res.headers });
  }

  const fetch0 = window.fetch.bind(window);
  window.fetch = async function (input, init) {
    if (!keyed(input)) return fetch0(input, init);
    const headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
    headers.set("Authorization", "Bearer " + (sessionStorage.getItem(KEY) || ""));
    const call = init && typeof init.body === "string" ? parse(init.body) : null;
    const body = withBases(call);
    const res = await fetch0(input, Object.assign({}, init, { headers, credentials: "omit" }, body ? { body } : {}));
    if (res.status === 401) {
      // A key that no longer works: ask again.
      sessionStorage.removeItem(KEY);
      location.reload();
    }
    if (res.ok) await remember(call, res);
    return explained(call, res);
  };

  function start() {
    if (!decapURL || decapURL.indexOf("{{") === 0) {
      document.getElementById("folio-nodecap").hidden = false;
      return;
    }
    const s = document.createElement("script");
    s.src = decapURL;
    document.head.appendChild(s);
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
  ready(() => (sessionStorage.getItem(KEY) ? start() : login()));
})();
