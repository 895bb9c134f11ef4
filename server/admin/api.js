// The folio API as the admin pages call it: the key goes in the
// Authorization header only, never in a URL, and is never logged.

export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// describe turns a failure into what the user reads.
export function describe(err) {
  if (!(err instanceof APIError)) return "Network error: " + (err && err.message ? err.message : "folio did not answer");
  switch (err.status) {
    case 401:
      return "Your API key was refused (401 " + err.code + "): " + err.message + ". Paste a valid key.";
    case 403:
      return "Your API key may not do this (403 " + err.code + "): " + err.message + ".";
    default:
      return err.message ? err.message + " (" + err.status + " " + err.code + ")" : "HTTP " + err.status;
  }
}

async function errorOf(res) {
  let code = "HTTP_" + res.status, message = res.statusText;
  try {
    const body = await res.json();
    if (body && body.error) ({ error: code, message } = body);
  } catch {
    // not JSON: keep the status line
  }
  return new APIError(res.status, code, message);
}

// session is a signed-in editor's (signin.js): every API of the page
// sends its CSRF token when it has no key.
export const session = { csrf: "" };

export class API {
  // key returns the current API key ("" for none).
  constructor(key) {
    this.key = key;
  }

  headers(extra = {}) {
    const h = { ...extra };
    const k = this.key();
    if (k) h["Authorization"] = "Bearer " + k;
    else if (session.csrf) h["X-CSRF-Token"] = session.csrf;
    return h;
  }

  // call sends a request and returns { data, etag }; a JSON body is sent
  // for json, errors throw APIError.
  async call(method, path, { json, headers } = {}) {
    const init = { method, headers: this.headers(headers), cache: "no-store" };
    if (json !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(json);
    }
    const res = await fetch(path, init);
    if (!res.ok) throw await errorOf(res);
    const data = res.status === 204 ? null : await res.json();
    return { data, etag: res.headers.get("ETag") };
  }

  get(path) {
    return this.call("GET", path);
  }

  // upload sends one file as its own multipart request, reporting
  // progress(loaded, total); it resolves to the response body (201 or
  // the error body) and its status.
  upload(file, folder, progress) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", "/api/v1/media");
      const k = this.key();
      if (k) xhr.setRequestHeader("Authorization", "Bearer " + k);
      else if (session.csrf) xhr.setRequestHeader("X-CSRF-Token", session.csrf);
      xhr.responseType = "json";
      xhr.upload.addEventListener("progress", (e) => {
        if (e.lengthComputable) progress(e.loaded, e.total);
      });
      xhr.addEventListener("load", () => resolve({ status: xhr.status, body: xhr.response || {} }));
      xhr.addEventListener("error", () => reject(new Error("the upload did not reach folio")));
      xhr.addEventListener("abort", () => reject(new Error("the upload was cancelled")));
      const form = new FormData();
      form.append("folder", folder);
      form.append("files", file, file.name);
      xhr.send(form);
    });
  }
}
