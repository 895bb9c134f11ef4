// Where a media item is used: its id with a button that copies its
// reference (media:<id>), the documents that refer to it (GET
// /api/v1/media/{id}/referrers) and the sentence the delete confirmation
// says ("3 posts use this image"); and the Status tab's list of references
// to media the library lacks.

import { describe } from "./api.js";
import { $, el } from "./dom.js";

// usage is what is known of the open item's users: null while loading or
// when the key may not read content, else { id, referrers, total }.
let usage = null;

// What the item is, for sentences.
function noun(item) {
  const t = item.mimeType || "";
  if (t.startsWith("image/")) return "image";
  if (t.startsWith("video/")) return "video";
  if (t.startsWith("audio/")) return "audio file";
  return "file";
}

// who names the documents: "3 posts, 1 page and the globals".
function who(referrers) {
  const counts = new Map();
  for (const r of referrers) {
    const k = r.kind === "item" ? r.type : r.kind;
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  const parts = [];
  for (const [k, n] of counts) {
    if (k === "globals") parts.push("the site settings");
    else if (k === "page") parts.push(n + (n === 1 ? " page" : " pages"));
    else parts.push(n + " " + (n === 1 && k.length > 1 && k.endsWith("s") ? k.slice(0, -1) : k));
  }
  if (parts.length < 2) return parts.join("");
  return parts.slice(0, -1).join(", ") + " and " + parts[parts.length - 1];
}

// usageSentence is "3 posts use this image" for the open item; "" when it
// is not known (still loading, or the key may not read content).
export function usageSentence(item) {
  if (!usage || usage.id !== item.id) return "";
  if (usage.total === 0) return "No page or item uses this " + noun(item) + ".";
  const many = usage.total > 1 || (usage.referrers[0] && usage.referrers[0].kind === "globals");
  let s = who(usage.referrers) + (many ? " use" : " uses") + " this " + noun(item);
  if (usage.total > usage.referrers.length) s += " (" + usage.total + " documents in all)";
  return s.charAt(0).toUpperCase() + s.slice(1) + ".";
}

function label(r) {
  if (r.kind === "globals") return "Site settings";
  if (r.kind === "page") return "Page " + r.slug;
  return r.type + " / " + r.slug;
}

// showUsage adds the item's id and its copy button to the facts list dl,
// and loads the documents that use it into #usage.
export async function showUsage(api, item, dl) {
  usage = null;
  const ref = "media:" + item.id;
  const copied = el("span", { class: "muted", id: "copy-msg", role: "status" });
  const copy = el("button", { type: "button", id: "copy-ref", textContent: "Copy reference", title: "Copy " + ref + " to paste into a media field" });
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(ref);
      copied.textContent = "Copied " + ref + ": paste it into a media field.";
    } catch {
      $("media-ref").select();
      copied.textContent = "Press Ctrl+C (⌘C) to copy the selected reference.";
    }
  });
  const field = el("input", { id: "media-ref", readOnly: true, value: ref });
  field.setAttribute("aria-label", "Reference to paste into content");
  dl.append(el("dt", { textContent: "ID" }), el("dd", {}, field, " ", copy, " ", copied));

  const box = $("usage-list");
  const msg = $("usage-msg");
  box.replaceChildren();
  msg.textContent = "Looking for the pages and items that use it…";
  const path = "/api/v1/media/" + encodeURIComponent(item.id) + "/referrers?limit=100";
  let data;
  try {
    // Drafts count too when the key may read them.
    ({ data } = await api.get(path + "&draft=true").catch((err) => {
      if (err.status === 403) return api.get(path);
      throw err;
    }));
  } catch (err) {
    if (err.status === 403) msg.textContent = "Your key may not read content (content:read): who uses this " + noun(item) + " is not known.";
    else msg.textContent = describe(err);
    return;
  }
  usage = { id: item.id, referrers: data.items, total: data.total };
  msg.textContent = usageSentence(item);
  box.replaceChildren(
    ...data.items.map((r) =>
      el("li", {}, el("strong", { textContent: label(r) }), " ", r.title ? "“" + r.title + "” " : "", el("code", { textContent: r.fields.join(", ") })),
    ),
  );
}

// deleteWarning is what the delete confirmation says of the item's users.
export function deleteWarning(item) {
  const s = usageSentence(item);
  if (!s) return "Pages that use it will show a broken " + noun(item) + ".";
  if (usage.total === 0) return s;
  return s + " They will show a broken " + noun(item) + ".";
}

// renderMissingMedia lists, in the Status tab, the references to media
// the library lacks (status.missingMedia).
export function renderMissingMedia(ul, status) {
  const missing = status.missingMedia || [];
  if (!missing.length) {
    ul.replaceChildren(el("li", { class: "muted", textContent: "None." }));
    return;
  }
  const rows = [];
  for (const m of missing) {
    const ref = m.id ? "media:" + m.id : "/uploads/" + m.key;
    for (const r of m.referrers) rows.push(el("li", {}, el("code", { textContent: label(r) + " " + r.field + ": " + ref })));
  }
  if (status.missingMediaTotal > missing.length) {
    rows.push(el("li", { class: "muted", textContent: "… " + (status.missingMediaTotal - missing.length) + " more missing media items." }));
  }
  ul.replaceChildren(...rows);
}
