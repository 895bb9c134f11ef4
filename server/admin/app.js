// folio's admin pages: the media library (grid, folders, search and
// filters, uploads, alt text, focal point, delete) and the content status.
// Everything goes through the API with the key the user pasted; the page
// holds no data of its own.

import { FIELDS, LocaleEditor, canonical } from "./medialocale.js";
import { API, describe } from "./api.js";
import { $, el } from "./dom.js";
import { paint } from "./blurhash.js";
import { deleteWarning, renderMissingMedia, showUsage } from "./usage.js";
import { startSession } from "./signin.js";

const KEY = "folio.apiKey";
const PAGE = 48;

const state = {
  folder: "", // "" is every folder
  type: "",
  search: "",
  offset: 0,
  total: 0,
  items: [],
  folders: ["/"],
  locales: [], // the locales the detail panel offers (the list's `locales`)
  text: null, // the LocaleEditor of the item open in the detail panel
  item: null, // the item open in the detail panel
  etag: "",
  focal: { x: 50, y: 50 },
};

const api = new API(() => sessionStorage.getItem(KEY) || "");

function notice(msg, kind = "error") {
  const n = $("notice");
  n.textContent = msg || "";
  n.className = kind;
  n.hidden = !msg;
}

// --- the key ---------------------------------------------------------------

function lock(msg) {
  sessionStorage.removeItem(KEY);
  $("app").hidden = true;
  $("tabs").hidden = true;
  $("detail").hidden = true;
  $("intro").hidden = false;
  $("key-forget").hidden = true;
  $("read-only-note").hidden = true;
  document.body.classList.remove("unlocked");
  notice(msg);
}

// failed reports an API failure; a 401 means the key is gone or wrong, and
// nothing works without one.
function failed(err, where) {
  if (err && err.status === 401) {
    lock(describe(err));
    return;
  }
  (where || ((m) => notice(m)))(describe(err));
}

async function unlock() {
  let status;
  try {
    ({ data: status } = await api.get("/api/v1/status"));
  } catch (err) {
    lock(describe(err));
    return;
  }
  // A read-only box refuses every write: offer none.
  document.body.classList.toggle("read-only", Boolean(status.readOnly));
  $("read-only-note").hidden = !status.readOnly;
  notice("");
  $("app").hidden = false;
  $("tabs").hidden = false;
  $("intro").hidden = true;
  $("key-forget").hidden = false;
  document.body.classList.add("unlocked");
  await Promise.all([loadFolders(), loadMedia()]);
}

$("key-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const k = $("key-input").value.trim();
  $("key-input").value = "";
  if (!k) {
    notice("Paste an API key first.");
    return;
  }
  sessionStorage.setItem(KEY, k);
  unlock();
});

$("key-forget").addEventListener("click", () => lock(""));

// --- tabs ------------------------------------------------------------------

function showTab(name) {
  $("library").hidden = name !== "library";
  $("status").hidden = name !== "status";
  $("content-tab").hidden = name !== "content";
  $("tab-library").setAttribute("aria-pressed", String(name === "library"));
  $("tab-status").setAttribute("aria-pressed", String(name === "status"));
  $("tab-content").setAttribute("aria-pressed", String(name === "content"));
  if (name === "content") document.dispatchEvent(new CustomEvent("folio:content-tab"));
  if (name === "status") loadStatus();
}
$("tab-library").addEventListener("click", () => showTab("library"));
$("tab-status").addEventListener("click", () => showTab("status"));
$("tab-content").addEventListener("click", () => showTab("content"));

// --- folders ---------------------------------------------------------------

async function loadFolders() {
  try {
    const { data } = await api.get("/api/v1/media/folders");
    state.folders = data.folders;
  } catch (err) {
    failed(err, (m) => ($("folder-msg").textContent = m));
    return;
  }
  if (state.folder && !state.folders.includes(state.folder)) state.folder = "";
  renderFolders();
}

function renderFolders() {
  const root = { path: "/", children: new Map() };
  for (const p of [...state.folders].sort()) {
    if (p === "/") continue;
    let node = root;
    let at = "";
    for (const seg of p.split("/").slice(1)) {
      at += "/" + seg;
      if (!node.children.has(seg)) node.children.set(seg, { path: at, children: new Map() });
      node = node.children.get(seg);
    }
  }
  const item = (label, path) => {
    const b = el("button", { type: "button", class: "folder", textContent: label, dataset: { path } });
    if (path === state.folder) b.setAttribute("aria-current", "true");
    b.addEventListener("click", () => selectFolder(path));
    return b;
  };
  const branch = (node) => {
    const ul = el("ul");
    for (const [seg, child] of node.children) ul.append(el("li", {}, item(seg, child.path), child.children.size ? branch(child) : null));
    return ul;
  };
  const tree = $("folder-tree");
  tree.replaceChildren(el("li", {}, item("All media", "")), el("li", {}, item("/ (root)", "/"), root.children.size ? branch(root) : null));
  const target = state.folder || "/";
  $("folder-parent").textContent = target;
  $("upload-folder").textContent = target;
  $("folder-delete").disabled = state.folder === "" || state.folder === "/";
  const sel = $("detail-folder");
  sel.replaceChildren(...state.folders.map((p) => el("option", { value: p, textContent: p })));
}

function selectFolder(path) {
  state.folder = path;
  state.offset = 0;
  $("folder-msg").textContent = "";
  renderFolders();
  loadMedia();
}

$("folder-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = $("folder-name").value.trim().replace(/^\/+|\/+$/g, "");
  if (!name) {
    $("folder-msg").textContent = "Give the folder a name.";
    return;
  }
  const parent = state.folder || "/";
  const path = (parent === "/" ? "" : parent) + "/" + name;
  try {
    await api.call("POST", "/api/v1/media/folders", { json: { path } });
  } catch (err) {
    failed(err, (m) => ($("folder-msg").textContent = m));
    return;
  }
  $("folder-name").value = "";
  $("folder-msg").textContent = "Created " + path + ".";
  await loadFolders();
});

$("folder-delete").addEventListener("click", async () => {
  const path = state.folder;
  if (!path || path === "/") return;
  try {
    await api.call("DELETE", "/api/v1/media/folders", { json: { path } });
  } catch (err) {
    failed(err, (m) => ($("folder-msg").textContent = m));
    return;
  }
  $("folder-msg").textContent = "Deleted " + path + ".";
  state.folder = "";
  await loadFolders();
  await loadMedia();
});

// --- the grid --------------------------------------------------------------

async function loadMedia() {
  const q = new URLSearchParams({ limit: String(PAGE), offset: String(state.offset) });
  if (state.folder) q.set("folder", state.folder);
  if (state.type) q.set("type", state.type);
  if (state.search) q.set("search", state.search);
  let data;
  try {
    ({ data } = await api.get("/api/v1/media?" + q));
  } catch (err) {
    failed(err);
    return;
  }
  state.items = data.data;
  state.total = data.total;
  state.locales = data.locales || [];
  renderGrid();
}

// thumbnail picks the smallest derivative, else the original of an image.
function thumbnail(it) {
  if (it.sizes && it.sizes.length) return [...it.sizes].sort((a, b) => a.width - b.width)[0].url;
  return it.mimeType.startsWith("image/") ? it.url : "";
}

// preview picks a derivative about as wide as the detail panel, else the
// original (which is then no wider than 800 px, or has no derivatives).
function preview(it) {
  const sizes = [...(it.sizes || [])].sort((a, b) => a.width - b.width);
  const fit = sizes.find((s) => s.width >= 800);
  return fit ? fit.url : it.url;
}

function kindOf(it) {
  if (it.mimeType.startsWith("video/")) return "Video";
  if (it.mimeType === "application/pdf") return "PDF";
  return it.mimeType;
}

function tile(it) {
  const thumb = el("div", { class: "thumb" });
  if (it.dominantColor) thumb.style.backgroundColor = it.dominantColor;
  const src = thumbnail(it);
  if (src) {
    if (it.placeholder) {
      const ratio = it.width && it.height ? it.height / it.width : 1;
      const canvas = el("canvas", { class: "placeholder", width: 32, height: Math.max(1, Math.min(64, Math.round(32 * ratio))) });
      if (paint(canvas, it.placeholder)) thumb.append(canvas);
    }
    const img = el("img", { alt: it.alt || "", loading: "lazy", decoding: "async" });
    img.addEventListener("load", () => thumb.classList.add("loaded"));
    img.src = src;
    thumb.append(img);
  } else {
    thumb.append(el("span", { class: "kind", textContent: kindOf(it) }));
  }
  const b = el("button", { type: "button", class: "tile", dataset: { id: it.id }, title: it.filename }, thumb,
    el("span", { class: "name", textContent: it.filename }));
  b.addEventListener("click", () => openDetail(it.id));
  return el("li", {}, b);
}

function renderGrid() {
  $("grid").replaceChildren(...state.items.map(tile));
  $("empty").hidden = state.items.length > 0;
  const pages = Math.max(1, Math.ceil(state.total / PAGE));
  const page = Math.floor(state.offset / PAGE) + 1;
  $("count").textContent = state.total === 1 ? "1 item" : state.total + " items";
  $("page").textContent = "Page " + page + " of " + pages;
  $("prev").disabled = state.offset === 0;
  $("next").disabled = state.offset + PAGE >= state.total;
}

$("prev").addEventListener("click", () => {
  state.offset = Math.max(0, state.offset - PAGE);
  loadMedia();
});
$("next").addEventListener("click", () => {
  state.offset += PAGE;
  loadMedia();
});

let searchTimer = 0;
$("search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    state.search = $("search").value.trim();
    state.offset = 0;
    loadMedia();
  }, 250);
});
$("type").addEventListener("change", () => {
  state.type = $("type").value;
  state.offset = 0;
  loadMedia();
});
$("filters").addEventListener("submit", (e) => e.preventDefault());

// --- uploads ---------------------------------------------------------------

async function uploadAll(files) {
  const folder = state.folder || "/";
  const jobs = [...files].map((file) => {
    const bar = el("progress", { max: 1, value: 0 });
    const msg = el("span", { class: "upload-msg", textContent: "waiting" });
    const li = el("li", { class: "upload" }, el("span", { class: "upload-name", textContent: file.name }), bar, msg);
    $("uploads").prepend(li);
    return { file, li, bar, msg };
  });
  // Three at a time: each file is its own request with its own progress.
  const queue = [...jobs];
  const worker = async () => {
    for (let j = queue.shift(); j; j = queue.shift()) await uploadOne(j, folder);
  };
  await Promise.all([worker(), worker(), worker()]);
  $("uploads-clear").hidden = false;
  await Promise.all([loadMedia(), loadFolders()]);
}

$("uploads-clear").addEventListener("click", () => {
  for (const li of $("uploads").querySelectorAll(".upload.done, .upload.failed")) li.remove();
  $("uploads-clear").hidden = $("uploads").children.length === 0;
});

async function uploadOne({ file, li, bar, msg }, folder) {
  msg.textContent = "uploading";
  let res;
  try {
    res = await api.upload(file, folder, (loaded, total) => {
      bar.value = total ? loaded / total : 0;
      msg.textContent = Math.round((100 * loaded) / (total || 1)) + "%";
    });
  } catch (err) {
    li.classList.add("failed");
    msg.textContent = err.message;
    return;
  }
  const body = res.body || {};
  if (res.status === 201 && body.data && body.data.length) {
    bar.value = 1;
    li.classList.add("done");
    msg.textContent = "uploaded";
    return;
  }
  li.classList.add("failed");
  const e = (body.errors && body.errors[0]) || body;
  msg.textContent = res.status === 401 || res.status === 403
    ? describe({ status: res.status, code: body.error, message: body.message })
    : (e.message || "upload failed") + " (" + res.status + (e.error ? " " + e.error : "") + ")";
  if (res.status === 401) lock(msg.textContent);
}

$("file-input").addEventListener("change", (e) => {
  const files = e.target.files;
  if (files && files.length) uploadAll(files).finally(() => (e.target.value = ""));
});

const zone = $("dropzone");
zone.addEventListener("dragover", (e) => {
  e.preventDefault();
  zone.classList.add("over");
});
zone.addEventListener("dragleave", () => zone.classList.remove("over"));
zone.addEventListener("drop", (e) => {
  e.preventDefault();
  zone.classList.remove("over");
  if (e.dataTransfer && e.dataTransfer.files.length) uploadAll(e.dataTransfer.files);
});
// A file dropped beside the zone must not navigate away from the page.
window.addEventListener("dragover", (e) => e.preventDefault());
window.addEventListener("drop", (e) => e.preventDefault());

// --- the detail panel ------------------------------------------------------

function setFocal(x, y) {
  state.focal = { x, y };
  const pos = x + "% " + y + "%";
  $("focal-marker").style.left = x + "%";
  $("focal-marker").style.top = y + "%";
  $("crop-square").style.objectPosition = pos;
  $("crop-wide").style.objectPosition = pos;
  $("focal-text").textContent = "Focal point: " + x + "% across, " + y + "% down. Click the image to move it.";
}

function fact(dl, term, value) {
  dl.append(el("dt", { textContent: term }), el("dd", {}, value));
}

async function openDetail(id) {
  let data, etag;
  try {
    ({ data, etag } = await api.get("/api/v1/media/" + encodeURIComponent(id)));
  } catch (err) {
    failed(err);
    return;
  }
  state.item = data;
  state.etag = etag;
  $("detail-title").textContent = data.filename;
  $("detail-msg").textContent = "";
  $("confirm").hidden = true;
  $("delete").hidden = false;
  const image = data.mimeType.startsWith("image/");
  $("focus-box").hidden = !image;
  $("crops").hidden = !image;
  $("focal-text").hidden = !image;
  if (image) {
    const src = preview(data);
    for (const i of ["detail-img", "crop-square", "crop-wide"]) {
      $(i).src = src;
    }
    $("detail-img").alt = data.alt || "";
    setFocal(data.focalX, data.focalY);
  }
  state.text = new LocaleEditor(data);
  renderLocales();
  showLocale("");
  $("detail-folder").value = data.folder;
  const dl = $("detail-facts");
  dl.replaceChildren();
  fact(dl, "Type", data.mimeType);
  if (data.width) fact(dl, "Size", data.width + " × " + data.height + " px");
  fact(dl, "Bytes", String(data.size));
  fact(dl, "Uploaded", new Date(data.createdAt).toLocaleString());
  fact(dl, "URL", el("a", { href: data.url, textContent: data.url, target: "_blank", rel: "noopener noreferrer" }));
  showUsage(api, data, dl);
  $("detail").hidden = false;
  $("alt").focus();
}

// --- alt, title and description per locale ---------------------------------

function renderLocales() {
  const ed = state.text;
  const opts = [el("option", { value: "", textContent: "Default (no locale)" })];
  for (const l of ed.locales(state.locales)) {
    opts.push(el("option", { value: l, textContent: ed.has(l) ? l + " ✓" : l }));
  }
  $("detail-locale").replaceChildren(...opts);
  $("detail-locale").value = ed.current;
}

// keepLocale records the inputs in the current locale's draft.
function keepLocale() {
  const values = {};
  for (const f of FIELDS) values[f] = $(f).value;
  state.text.keep(values);
}

function showLocale(locale) {
  const ed = state.text;
  const values = ed.show(locale);
  for (const f of FIELDS) {
    $(f).value = values[f];
    $(f).placeholder = ed.fallback(f);
  }
  $("detail-locale").value = locale;
}

$("detail-locale").addEventListener("change", () => {
  keepLocale();
  showLocale($("detail-locale").value);
  renderLocales();
});

function addLocale() {
  const tag = canonical($("new-locale").value);
  if (!tag) {
    $("detail-msg").textContent = "“" + $("new-locale").value + "” is not a language tag (BCP 47, like fr or pt-BR).";
    return;
  }
  keepLocale();
  showLocale(tag);
  renderLocales();
  $("new-locale").value = "";
  $("detail-msg").textContent = "";
  $("alt").focus();
}
$("add-locale").addEventListener("click", addLocale);
$("new-locale").addEventListener("keydown", (e) => {
  if (e.key === "Enter") {
    e.preventDefault();
    addLocale();
  }
});

function closeDetail() {
  $("detail").hidden = true;
  state.item = null;
}

$("detail-close").addEventListener("click", closeDetail);
$("detail").addEventListener("click", (e) => {
  if (e.target === $("detail")) closeDetail();
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !$("detail").hidden) closeDetail();
});

$("detail-img").addEventListener("click", (e) => {
  const r = e.currentTarget.getBoundingClientRect();
  const pct = (v, size) => Math.round(Math.min(100, Math.max(0, (100 * v) / size)) * 10) / 10;
  setFocal(pct(e.clientX - r.left, r.width), pct(e.clientY - r.top, r.height));
  $("detail-msg").textContent = "Focal point moved: Save to keep it.";
});

$("detail-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const it = state.item;
  if (!it) return;
  keepLocale();
  const patch = state.text.plain();
  const localized = state.text.localized();
  if (it.mimeType.startsWith("image/")) Object.assign(patch, { focalX: state.focal.x, focalY: state.focal.y });
  if ($("detail-folder").value && $("detail-folder").value !== it.folder) patch.folder = $("detail-folder").value;
  $("save").disabled = true;
  $("detail-msg").textContent = "Saving…";
  try {
    let { data, etag } = await api.call("PATCH", "/api/v1/media/" + encodeURIComponent(it.id), {
      json: patch,
      headers: state.etag ? { "If-Match": state.etag } : {},
    });
    state.item = data;
    state.etag = etag;
    // A field takes a string or an object of locales, not both: the
    // locales go in a second PATCH, on the version the first one made.
    if (localized) {
      ({ data, etag } = await api.call("PATCH", "/api/v1/media/" + encodeURIComponent(it.id), {
        json: localized,
        headers: { "If-Match": etag },
      }));
      state.item = data;
      state.etag = etag;
    }
    state.text = new LocaleEditor(data, state.text.current);
    renderLocales();
    showLocale(state.text.current);
    $("detail-msg").textContent = "Saved.";
    loadMedia();
  } catch (err) {
    if (err.status === 412) $("detail-msg").textContent = "Someone changed this item since you opened it: close and open it again to see their change.";
    else failed(err, (m) => ($("detail-msg").textContent = m));
  } finally {
    $("save").disabled = false;
  }
});

$("delete").addEventListener("click", () => {
  $("confirm-text").textContent = "Delete " + state.item.filename + " for good? " + deleteWarning(state.item);
  $("confirm").hidden = false;
  $("delete").hidden = true;
  $("confirm-cancel").focus();
});
$("confirm-cancel").addEventListener("click", () => {
  $("confirm").hidden = true;
  $("delete").hidden = false;
});
$("confirm-delete").addEventListener("click", async () => {
  const it = state.item;
  try {
    await api.call("DELETE", "/api/v1/media/" + encodeURIComponent(it.id));
  } catch (err) {
    failed(err, (m) => ($("detail-msg").textContent = m));
    return;
  }
  closeDetail();
  notice("Deleted " + it.filename + ".", "info");
  loadMedia();
});

// --- status ----------------------------------------------------------------

const time = (t) => (t && !t.startsWith("0001-") ? new Date(t).toLocaleString() : "—");

async function loadStatus() {
  let s;
  try {
    ({ data: s } = await api.get("/api/v1/status"));
  } catch (err) {
    failed(err);
    return;
  }
  const dl = $("status-list");
  dl.replaceChildren();
  fact(dl, "Branch", s.branch || "—");
  fact(dl, "Served commit", el("code", { textContent: s.commit || "—" }));
  fact(dl, "Committed", time(s.commitTime));
  fact(dl, "Loaded", time(s.loadedAt));
  fact(dl, "Draft branch", s.draftBranch || "none (drafts come from the published branch)");
  if (s.draftBranch) fact(dl, "Draft commit", el("code", { textContent: s.draftCommit || "not loaded" }));
  fact(dl, "Read-only box", s.readOnly ? "yes" : "no");
  const problems = s.problems || [];
  $("problems").replaceChildren(
    ...(problems.length
      ? problems.map((p) => el("li", {}, el("code", { textContent: p.path + (p.line ? ":" + p.line : "") + ": " + p.message })))
      : [el("li", { class: "muted", textContent: "None." })]),
  );
  renderMissingMedia($("missing-media"), s);
  const le = s.lastError;
  $("last-error").textContent = le ? time(le.at) + (le.commit ? " at commit " + le.commit : "") + ": " + le.message : "None.";
}
$("status-refresh").addEventListener("click", loadStatus);

// --- start -----------------------------------------------------------------

if (sessionStorage.getItem(KEY)) unlock();
else startSession(api).then((ok) => ok && unlock());
