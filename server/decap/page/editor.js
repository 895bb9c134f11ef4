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

  const fetch0 = window.fetch.bind(window);
  window.fetch = async function (input, init) {
    if (!keyed(input)) return fetch0(input, init);
    const headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
    headers.set("Authorization", "Bearer " + (sessionStorage.getItem(KEY) || ""));
    const res = await fetch0(input, Object.assign({}, init, { headers, credentials: "omit" }));
    if (res.status === 401) {
      // A key that no longer works: ask again.
      sessionStorage.removeItem(KEY);
      location.reload();
    }
    return res.ok ? res : explained(res);
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
