// The alt text, title and description of the item open in the detail
// panel, per locale: "" is the unlocalized value (the default locale's),
// every other key a BCP 47 tag. The editor keeps a draft per locale while
// the locale switcher moves between them, and turns the drafts into the
// PATCH bodies that save them (docs/media.md "Locales").

export const FIELDS = ["alt", "title", "description"];

const empty = () => ({ alt: "", title: "", description: "" });

// texts reads an item of the API: the plain fields and the *ByLocale maps.
function texts(item) {
  const t = { "": { alt: item.alt || "", title: item.title || "", description: item.description || "" } };
  for (const f of FIELDS) {
    for (const [locale, v] of Object.entries(item[f + "ByLocale"] || {})) {
      (t[locale] ??= empty())[f] = v;
    }
  }
  return t;
}

// canonical is the canonical form of a BCP 47 tag ("FR-ca" → "fr-CA"), or
// null when tag is not one.
export function canonical(tag) {
  try {
    const [c] = Intl.getCanonicalLocales(tag.trim());
    return c && c !== "und" ? c : null;
  } catch {
    return null;
  }
}

export class LocaleEditor {
  constructor(item, current = "") {
    this.saved = texts(item);
    this.drafts = texts(item);
    this.current = current;
    this.drafts[current] ??= empty();
  }

  // locales are the locales to offer besides "": the site's and those the
  // item has, sorted.
  locales(site) {
    const all = new Set([...site, ...Object.keys(this.drafts)]);
    all.delete("");
    return [...all].sort();
  }

  // has tells whether the item has any text in locale.
  has(locale) {
    const d = this.drafts[locale];
    return !!d && FIELDS.some((f) => d[f] !== "");
  }

  // keep records what the inputs show for the current locale.
  keep(values) {
    this.drafts[this.current] = { ...values };
  }

  // show makes locale current and returns its values.
  show(locale) {
    this.current = locale;
    return (this.drafts[locale] ??= empty());
  }

  // fallback is the text shown as a placeholder where locale has none:
  // the unlocalized value.
  fallback(f) {
    return this.current === "" ? "" : this.drafts[""][f];
  }

  // plain is the PATCH body of the unlocalized values.
  plain() {
    const d = this.drafts[""];
    return { alt: d.alt, title: d.title, description: d.description };
  }

  // localized is the PATCH body of the locales changed since the item was
  // read ("" removes a locale's value), or null when none changed.
  localized() {
    const patch = {};
    for (const [locale, d] of Object.entries(this.drafts)) {
      if (locale === "") continue;
      const was = this.saved[locale] || empty();
      for (const f of FIELDS) {
        if (d[f] !== was[f]) (patch[f] ??= {})[locale] = d[f];
      }
    }
    return Object.keys(patch).length ? patch : null;
  }
}
