// Editors' sign-in (docs/editors.md) on the admin pages: with a session
// the pages need no key; their writes carry the session's CSRF token.
// Without one, the providers' buttons are offered beside the key form.

import { session } from "./api.js";
import { $, el } from "./dom.js";

// startSession resolves to true when signed in (session.csrf set), after
// offering the sign-in buttons otherwise.
export async function startSession(api) {
  let res;
  try {
    res = await fetch("/api/v1/auth/session", { cache: "no-store" });
  } catch {
    return false;
  }
  if (res.ok) {
    const s = await res.json();
    session.csrf = s.csrfToken;
    signedIn(api, s);
    return true;
  }
  const pr = await fetch("/api/v1/auth/providers", { cache: "no-store" }).catch(() => null);
  if (pr && pr.ok) {
    const box = $("signin");
    box.replaceChildren(
      ...(await pr.json()).providers.map((p) =>
        el("a", { class: "button provider", href: p.login + "&return=" + encodeURIComponent(location.pathname), textContent: "Sign in with " + p.name }),
      ),
    );
    box.hidden = false;
  }
  return false;
}

function signedIn(api, s) {
  $("key-form").hidden = true;
  $("signin").hidden = true;
  const who = $("who");
  who.replaceChildren(
    el("span", { textContent: s.name + " (" + s.roles.join(", ") + ")" }),
    el("button", { type: "button", id: "sign-out", textContent: "Sign out" }),
  );
  who.hidden = false;
  $("sign-out").addEventListener("click", async () => {
    await api.call("POST", "/api/v1/auth/logout").catch(() => null);
    location.reload();
  });
  if (s.roles.includes("admin")) {
    $("editors").hidden = false;
    loadEditors(api);
    $("status-refresh").addEventListener("click", () => loadEditors(api));
  }
}

// loadEditors shows who has which role, from the repository's
// .folio/editors.yaml.
async function loadEditors(api) {
  let d;
  try {
    ({ data: d } = await api.get("/api/v1/auth/editors"));
  } catch (err) {
    $("editors-list").replaceChildren(el("tr", {}, el("td", { textContent: err.message })));
    return;
  }
  const all = (v) => (v.length ? v.join(", ") : "all");
  $("editors-list").replaceChildren(
    ...d.people.map((p) =>
      el("tr", {}, el("td", { textContent: p.name ? p.name + " <" + p.email + ">" : p.email }), el("td", { textContent: p.roles.join(", ") }),
        el("td", { textContent: all(p.collections) }), el("td", { textContent: all(p.locales) })),
    ),
    ...d.groups.map((g) =>
      el("tr", {}, el("td", { textContent: "group " + g.group }), el("td", { textContent: g.roles.join(", ") }),
        el("td", { textContent: all(g.collections) }), el("td", { textContent: all(g.locales) })),
    ),
  );
}
