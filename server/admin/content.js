// The Content tab: pick a version (the published branch, or any branch
// or tag from /refs), browse pages and items, open one (its fields, its
// rendered body, its problems), see its history and the diff between two
// versions, and make a preview link. Read-only: content is edited by
// committing.

import { API, describe } from "./api.js";
import { $, el } from "./dom.js";

const api = new API(() => sessionStorage.getItem("folio.apiKey") || "");
const LIMIT = 100;

const state = { loaded: false, ref: "", kind: "pages", doc: null, status: null };

function say(msg) {
  $("ct-msg").textContent = msg || "";
}

// q adds the chosen ref to a path's query.
function q(path, extra = {}) {
  const p = new URLSearchParams(extra);
  if (state.ref) p.set("ref", state.ref);
  const s = p.toString();
  return s ? path + (path.includes("?") ? "&" : "?") + s : path;
}

function docPath(kind, slug) {
  const s = slug.split("/").map(encodeURIComponent).join("/");
  return kind === "pages" ? "/api/v1/pages/" + s : "/api/v1/content/" + encodeURIComponent(kind) + "/" + s;
}

async function load() {
  say("");
  try {
    ({ data: state.status } = await api.get("/api/v1/status"));
  } catch (err) {
    say(describe(err));
    return;
  }
  const refSel = $("ct-ref");
  refSel.replaceChildren(el("option", { value: "", textContent: "Published (" + state.status.branch + ")" }));
  try {
    const { data } = await api.get("/api/v1/refs");
    for (const r of data.items) {
      refSel.append(el("option", { value: r.name, textContent: r.kind + ": " + r.name + " (" + r.commit.slice(0, 7) + ")" }));
    }
  } catch (err) {
    if (err.status !== 403) say(describe(err));
    else say("This key may read the published branch only (other versions need the content:preview scope).");
  }
  const kindSel = $("ct-kind");
  kindSel.replaceChildren(el("option", { value: "pages", textContent: "Pages" }));
  for (const t of state.status.types || []) kindSel.append(el("option", { value: t, textContent: t }));
  kindSel.value = state.kind;
  state.loaded = true;
  await list();
}

async function list() {
  const ul = $("ct-list");
  ul.replaceChildren();
  $("ct-doc").hidden = true;
  const path = state.kind === "pages" ? "/api/v1/pages" : "/api/v1/content/" + encodeURIComponent(state.kind);
  try {
    const { data } = await api.get(q(path, { limit: String(LIMIT), fields: "slug,title" }));
    $("ct-count").textContent = data.total + (data.total === 1 ? " document" : " documents") + (data.total > LIMIT ? " (first " + LIMIT + ")" : "");
    for (const d of data.items) {
      const b = el("button", { type: "button", textContent: d.title || d.slug, title: d.slug, dataset: { slug: d.slug } });
      b.addEventListener("click", () => open(d.slug));
      ul.append(el("li", {}, b));
    }
  } catch (err) {
    say(describe(err));
  }
}

async function open(slug) {
  say("");
  for (const b of $("ct-list").querySelectorAll("button")) b.setAttribute("aria-current", String(b.dataset.slug === slug));
  const path = docPath(state.kind, slug);
  let doc;
  try {
    ({ data: doc } = await api.get(q(path)));
  } catch (err) {
    say(describe(err));
    return;
  }
  state.doc = { slug, path, doc };
  $("ct-doc").hidden = false;
  $("ct-title").textContent = doc.title || slug;
  const facts = $("ct-facts");
  facts.replaceChildren();
  for (const [k, v] of [["slug", doc.slug], ["id", doc.id], ["published", doc.publishedAt], ["updated", doc.updatedAt], ["version", state.ref || "published"]]) {
    if (v) facts.append(el("dt", { textContent: k }), el("dd", { textContent: v }));
  }
  const data = { ...(doc.data || {}) };
  const body = typeof data.body === "string" ? data.body : "";
  delete data.body;
  const shown = doc.sections ? { sections: doc.sections, seo: doc.seo } : data;
  $("ct-fields").textContent = JSON.stringify(shown, null, 2);
  const r = $("ct-rendered");
  r.replaceChildren();
  if (body) r.append(sanitize(body));
  else r.append(el("p", { class: "muted", textContent: "No Markdown body." }));
  const probs = $("ct-problems");
  probs.replaceChildren();
  const mine = ((state.status && state.status.problems) || []).filter((p) => doc.id && p.path && p.path.includes("/" + slug.split("/").pop() + "."));
  if (mine.length === 0) probs.append(el("li", { class: "muted", textContent: "None reported." }));
  for (const p of mine) probs.append(el("li", { textContent: p.path + (p.line ? ":" + p.line : "") + ": " + p.message }));
  $("ct-diff-box").hidden = true;
  $("ct-preview-url").value = "";
  await history();
}

async function history() {
  const ol = $("ct-history");
  ol.replaceChildren();
  const d = state.doc;
  try {
    const { data } = await api.get(d.path + "/history?limit=50");
    if (data.items.length === 0) ol.append(el("li", { class: "muted", textContent: "No commits (not on the published branch)." }));
    data.items.forEach((h, i) => {
      const li = el("li", {},
        el("code", { textContent: h.commit.slice(0, 7) }), " ", h.change, " · ", h.author, " · ", h.date.slice(0, 10), " · ", h.message.split("\n")[0]);
      const next = data.items[i + 1];
      if (next && h.change !== "deleted") {
        const b = el("button", { type: "button", textContent: "Diff with previous", dataset: { from: next.commit, to: h.commit } });
        b.addEventListener("click", () => diff(next.commit, h.commit));
        li.append(" ", b);
      }
      ol.append(li);
    });
  } catch (err) {
    ol.append(el("li", { class: "muted", textContent: describe(err) }));
  }
}

// The tags a rendered body keeps; anything else keeps only its text.
const KEEP = new Set(["P", "H1", "H2", "H3", "H4", "H5", "H6", "UL", "OL", "LI", "EM", "STRONG", "CODE", "PRE",
  "BLOCKQUOTE", "BR", "HR", "TABLE", "THEAD", "TBODY", "TR", "TH", "TD", "A", "DEL", "SUP", "SUB"]);
const DROP = new Set(["SCRIPT", "STYLE", "IFRAME", "OBJECT", "EMBED", "TEMPLATE", "NOSCRIPT"]);

// sanitize rebuilds a body's HTML (made by folio's Markdown renderer from
// the repository's files) from an allow-list: no attribute but a link's
// http(s) or relative href, no image loaded (its alt text stands in), no
// script or handler, whatever the file holds.
function sanitize(html) {
  const src = new DOMParser().parseFromString(html, "text/html").body;
  const out = document.createDocumentFragment();
  const copy = (from, to) => {
    for (const n of from.childNodes) {
      if (n.nodeType === Node.TEXT_NODE) {
        to.append(n.textContent);
      } else if (n.nodeType === Node.ELEMENT_NODE) {
        if (DROP.has(n.tagName)) continue;
        if (n.tagName === "IMG") {
          to.append(el("span", { class: "muted", textContent: "[image" + (n.getAttribute("alt") ? ": " + n.getAttribute("alt") : "") + "]" }));
          continue;
        }
        if (!KEEP.has(n.tagName)) {
          copy(n, to);
          continue;
        }
        const e = document.createElement(n.tagName.toLowerCase());
        if (n.tagName === "A") {
          const href = n.getAttribute("href") || "";
          if (/^(https?:|\/|#|\.)/i.test(href) || !/^[a-z][a-z0-9+.-]*:/i.test(href)) {
            e.href = href;
            e.rel = "noopener noreferrer";
            e.target = "_blank";
          }
        }
        copy(n, e);
        to.append(e);
      }
    }
  };
  copy(src, out);
  return out;
}

function show(v) {
  if (v === undefined) return "";
  return typeof v === "string" ? v : JSON.stringify(v);
}

async function diff(from, to) {
  const d = state.doc;
  try {
    const { data } = await api.get(d.path + "/diff?" + new URLSearchParams({ from, to }));
    $("ct-diff-title").textContent = "Changes " + from.slice(0, 7) + " → " + to.slice(0, 7);
    const tb = $("ct-diff").tBodies[0];
    tb.replaceChildren();
    for (const c of data.changes) {
      tb.append(el("tr", {}, el("td", { textContent: c.field }), el("td", { textContent: c.change }),
        el("td", { textContent: show(c.from) }), el("td", { textContent: show(c.to) })));
    }
    if (data.changes.length === 0) tb.append(el("tr", {}, el("td", { colSpan: 4, textContent: "No field changed." })));
    $("ct-diff-box").hidden = false;
  } catch (err) {
    say(describe(err));
  }
}

async function preview() {
  const d = state.doc;
  try {
    const { data } = await api.call("POST", "/api/v1/previews", { json: { ref: state.ref || state.status.branch } });
    const url = new URL(d.path, location.origin);
    url.searchParams.set("preview", data.token);
    $("ct-preview-url").value = url.toString();
    $("ct-preview-url").select();
    try {
      await navigator.clipboard.writeText(url.toString());
      say("Preview link copied (valid until " + data.expiresAt + ").");
    } catch {
      say("Preview link made (valid until " + data.expiresAt + "): copy it from the field.");
    }
  } catch (err) {
    say(describe(err));
  }
}

document.addEventListener("folio:content-tab", () => {
  if (!state.loaded) load();
});
$("ct-ref").addEventListener("change", () => {
  state.ref = $("ct-ref").value;
  list();
});
$("ct-kind").addEventListener("change", () => {
  state.kind = $("ct-kind").value;
  list();
});
$("ct-bar").addEventListener("submit", (e) => e.preventDefault());
$("ct-preview").addEventListener("click", preview);
