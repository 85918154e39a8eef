// The admin dashboard's script: passkey sign-in and setup, the live log (Server-Sent Events), passkey and user actions.
// Plain JavaScript, no build step, nothing from a CDN. Values from the server are set with textContent, never as HTML.
"use strict";

const page = document.body.dataset.page;

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

function status(text, ok) {
  const element = document.getElementById("status");
  if (!element) return;
  element.textContent = text;
  element.dataset.ok = ok ? "true" : "false";
}

async function api(method, path, body) {
  const headers = { "X-CSRF-Token": csrfToken() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body),
  });
  let json = {};
  try { json = await response.json(); } catch (_) { json = {}; }
  if (json.error === "admin_unauthorized" && page !== "login") sessionEnded();
  return { status: response.status, json };
}

// The session ended (signed out elsewhere, expired, or the admin removed): say so, and lead back to the sign-in.
function sessionEnded() {
  status("Your dashboard session has ended. Sign in again to go on.", false);
  window.location.assign("/dashboard/login");
}

function toBuffer(b64url) {
  const base64 = b64url.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((b64url.length + 3) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
}

function toB64url(buffer) {
  let text = "";
  for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function creationOptions(json) {
  if (window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON) {
    return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  }
  return Object.assign({}, json, {
    challenge: toBuffer(json.challenge),
    user: Object.assign({}, json.user, { id: toBuffer(json.user.id) }),
    excludeCredentials: (json.excludeCredentials || []).map((c) => Object.assign({}, c, { id: toBuffer(c.id) })),
  });
}

function requestOptions(json) {
  if (window.PublicKeyCredential && PublicKeyCredential.parseRequestOptionsFromJSON) {
    return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  }
  return Object.assign({}, json, {
    challenge: toBuffer(json.challenge),
    allowCredentials: (json.allowCredentials || []).map((c) => Object.assign({}, c, { id: toBuffer(c.id) })),
  });
}

function credentialJSON(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const response = credential.response;
  const json = { id: credential.id, rawId: toB64url(credential.rawId), type: credential.type, clientExtensionResults: {}, response: {} };
  json.response.clientDataJSON = toB64url(response.clientDataJSON);
  if (response.attestationObject) {
    json.response.attestationObject = toB64url(response.attestationObject);
    if (response.getTransports) json.response.transports = response.getTransports();
  } else {
    json.response.authenticatorData = toB64url(response.authenticatorData);
    json.response.signature = toB64url(response.signature);
    if (response.userHandle) json.response.userHandle = toB64url(response.userHandle);
  }
  return json;
}

// A passkey assertion against an options/verify pair: sign-in, or the fresh check before a destructive action.
async function assertion(optionsPath, verifyPath) {
  const options = await api("POST", optionsPath, {});
  if (options.status !== 200) return options;
  const credential = await navigator.credentials.get({ publicKey: requestOptions(options.json) });
  return api("POST", verifyPath, { challengeKey: options.json.challengeKey, cred: credentialJSON(credential) });
}

async function signIn() {
  status("Waiting for your passkey…", true);
  try {
    const result = await assertion("/dashboard/api/login/options", "/dashboard/api/login/verify");
    if (result.status === 200) { window.location.assign("/dashboard"); return; }
    status(result.json.message || "Sign-in failed.", false);
  } catch (error) {
    status("The passkey prompt was closed or failed: " + error.name, false);
  }
}

async function setUp() {
  const token = document.getElementById("setup-token").value;
  const name = document.getElementById("admin-name").value;
  status("Creating your admin passkey…", true);
  try {
    const options = await api("POST", "/dashboard/api/setup/options", { token, name });
    if (options.status !== 200) { status(options.json.message || "Setup failed.", false); return; }
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options.json) });
    const result = await api("POST", "/dashboard/api/setup/verify", { challengeKey: options.json.challengeKey, cred: credentialJSON(credential) });
    if (result.status === 200) { window.location.assign("/dashboard"); return; }
    status(result.json.message || "Setup failed.", false);
  } catch (error) {
    status("The passkey prompt was closed or failed: " + error.name, false);
  }
}

// Runs a destructive action; when the server asks for a fresh passkey check, runs it and retries once.
async function withFreshCheck(action) {
  let result = await action();
  if (result.status === 403 && result.json.error === "fresh_check_required") {
    status("Confirm with your passkey…", true);
    try {
      const check = await assertion("/dashboard/api/recheck/options", "/dashboard/api/recheck/verify");
      if (check.status !== 200) return check;
    } catch (error) {
      return { status: 0, json: { message: "The passkey check was cancelled." } };
    }
    result = await action();
  }
  return result;
}

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined || text === "" ? "—" : String(text);
  if (className) td.className = className;
  row.appendChild(td);
  return td;
}

function eventRow(event) {
  const row = document.createElement("tr");
  row.dataset.result = event.result;
  row.dataset.id = String(event.id);
  cell(row, new Date(event.time).toLocaleString());
  cell(row, event.kind);
  cell(row, event.result, "result " + event.result);
  cell(row, event.username || event.userId);
  cell(row, event.credentialIdPrefix ? event.credentialIdPrefix + "…" : "");
  const details = cell(row, "");
  details.textContent = "";
  if (event.code) {
    const code = document.createElement("code");
    code.textContent = event.code;
    details.appendChild(code);
  }
  if (event.explanation) details.appendChild(document.createTextNode(" " + event.explanation));
  if (event.expected || event.received) {
    const more = document.createElement("div");
    more.className = "expected";
    more.textContent = "expected: " + (event.expected || "—") + " · received: " + (event.received || "—");
    details.appendChild(more);
  }
  if (!details.firstChild) details.textContent = event.origin || "—";
  cell(row, [event.clientIp, event.userAgent].filter(Boolean).join(" · "));
  return row;
}

function logQuery() {
  const params = new URLSearchParams();
  for (const [name, id] of [["result", "filter-result"], ["user", "filter-user"], ["code", "filter-code"]]) {
    const value = document.getElementById(id).value.trim();
    if (value) params.set(name, value);
  }
  return params.toString();
}

async function startLog() {
  const body = document.getElementById("events");
  const query = logQuery();
  const initial = await api("GET", "/dashboard/api/events?" + query);
  for (const event of initial.json.events || []) body.appendChild(eventRow(event));
  if (initial.status === 200) startStream(body, query);
}

// The live log's stream. The browser reconnects a dropped one by itself; one the server refused is closed for good,
// so then the page asks why: a session that ended leads to the sign-in, anything else is tried again.
function startStream(body, query) {
  const live = document.getElementById("live");
  const source = new EventSource("/dashboard/events/stream?" + query);
  source.addEventListener("open", () => { live.dataset.state = "live"; live.textContent = "live"; });
  source.addEventListener("error", () => {
    live.dataset.state = "reconnecting";
    live.textContent = "reconnecting…";
    if (source.readyState !== EventSource.CLOSED) return;
    api("GET", "/dashboard/api/events?limit=1").then((answer) => {
      if (answer.status !== 401) setTimeout(() => startStream(body, query), 5000);
    }, () => setTimeout(() => startStream(body, query), 5000));
  });
  source.addEventListener("ceremony", (message) => {
    const event = JSON.parse(message.data);
    if (body.querySelector('tr[data-id="' + event.id + '"]')) return;
    body.insertBefore(eventRow(event), body.firstChild);
    while (body.children.length > 500) body.removeChild(body.lastChild);
  });
}

function startUser() {
  const userID = document.getElementById("user").dataset.user;
  for (const row of document.querySelectorAll("tr[data-credential]")) {
    const id = row.dataset.credential;
    const path = "/dashboard/api/users/" + encodeURIComponent(userID) + "/passkeys/" + encodeURIComponent(id);
    row.querySelector(".rename").addEventListener("click", async () => {
      const name = window.prompt("New name for this passkey");
      if (!name) return;
      const result = await api("PATCH", path, { name });
      if (result.status === 200) window.location.reload(); else status(result.json.message || "Rename failed.", false);
    });
    row.querySelector(".delete-passkey").addEventListener("click", async () => {
      if (!window.confirm("Delete this passkey? The user can no longer sign in with it.")) return;
      const result = await withFreshCheck(() => api("DELETE", path));
      if (result.status === 200) window.location.reload(); else status(result.json.message || "Delete failed.", false);
    });
  }
  const toggle = document.getElementById("toggle-user");
  toggle.addEventListener("click", async () => {
    const disable = toggle.dataset.disabled !== "true";
    if (disable && !window.confirm("Disable this user? They keep their passkeys but cannot sign in or add one until enabled again.")) return;
    const result = await withFreshCheck(() => api("PATCH", "/dashboard/api/users/" + encodeURIComponent(userID), { disabled: disable }));
    if (result.status === 200) window.location.reload(); else status(result.json.message || "The change failed.", false);
  });
  const linkField = document.getElementById("link-url");
  document.getElementById("make-link").addEventListener("click", async () => {
    const replacePasskeys = document.getElementById("link-replace").checked;
    if (replacePasskeys && !window.confirm("Make a link that deletes this account's passkeys when it is used?")) return;
    const result = await withFreshCheck(() => api("POST", "/dashboard/api/users/" + encodeURIComponent(userID) + "/links", { replacePasskeys }));
    if (result.status !== 200) return status(result.json.message || "The link was not made.", false);
    linkField.value = result.json.url;
    linkField.hidden = false;
    linkField.select();
    // The same link as a QR code, to open on the person's phone: drawn here, sent to no one.
    const qr = document.getElementById("link-qr");
    qr.replaceChildren(QRCode.svg(result.json.url));
    qr.hidden = false;
    status(`Link made, valid until ${new Date(result.json.expiresAt).toLocaleString()}. It is shown only now.`, true);
  });
  document.getElementById("revoke-links").addEventListener("click", async () => {
    const result = await withFreshCheck(() => api("DELETE", "/dashboard/api/users/" + encodeURIComponent(userID) + "/links"));
    if (result.status !== 200) return status(result.json.message || "Revoking failed.", false);
    linkField.hidden = true;
    linkField.value = "";
    document.getElementById("link-qr").replaceChildren();
    document.getElementById("link-qr").hidden = true;
    status(`${result.json.revoked} unused link${result.json.revoked === 1 ? "" : "s"} revoked.`, true);
  });
  document.getElementById("delete-user").addEventListener("click", async () => {
    if (!window.confirm("Delete this user and all their passkeys?")) return;
    const result = await withFreshCheck(() => api("DELETE", "/dashboard/api/users/" + encodeURIComponent(userID)));
    if (result.status === 200) window.location.assign("/dashboard/users"); else status(result.json.message || "Delete failed.", false);
  });
}

function startWebhooks() {
  const secretField = document.getElementById("endpoint-secret");
  const showSecret = (secret, what) => {
    secretField.value = secret;
    secretField.hidden = false;
    secretField.select();
    status(`${what} Its signing secret is above, shown only now: give it to the receiver.`, true);
  };
  document.getElementById("add-endpoint").addEventListener("click", async () => {
    const url = document.getElementById("endpoint-url").value.trim();
    const description = document.getElementById("endpoint-description").value.trim();
    const eventTypes = [...document.querySelectorAll('input[name="event-type"]:checked')].map((box) => box.value);
    const result = await withFreshCheck(() => api("POST", "/dashboard/api/webhooks", { url, description, eventTypes }));
    if (result.status !== 200) return status(result.json.message || "The endpoint was not added.", false);
    showSecret(result.json.secret, "Endpoint added (reload to see it in the list).");
  });
  for (const row of document.querySelectorAll("tr[data-endpoint]")) {
    const path = "/dashboard/api/webhooks/" + encodeURIComponent(row.dataset.endpoint);
    row.querySelector(".toggle-endpoint").addEventListener("click", async () => {
      const enabled = row.dataset.enabled !== "true";
      const result = await withFreshCheck(() => api("PATCH", path, { enabled }));
      if (result.status === 200) window.location.reload(); else status(result.json.message || "The change failed.", false);
    });
    row.querySelector(".rotate-endpoint").addEventListener("click", async () => {
      const hours = window.prompt("Hours the current secret keeps signing beside the new one (0 if it leaked)", "24");
      if (hours === null) return;
      const result = await withFreshCheck(() => api("POST", path + "/rotate", { overlapSeconds: Math.round(Number(hours) * 3600) }));
      if (result.status !== 200) return status(result.json.message || "No new secret was made.", false);
      showSecret(result.json.secret, "New secret made.");
    });
    row.querySelector(".retry-endpoint").addEventListener("click", async () => {
      const result = await api("POST", path + "/retry", {});
      if (result.status !== 200) return status(result.json.message || "Retry failed.", false);
      status(`${result.json.retried} failed deliver${result.json.retried === 1 ? "y" : "ies"} will be sent again.`, true);
    });
    row.querySelector(".delete-endpoint").addEventListener("click", async () => {
      if (!window.confirm("Remove this endpoint? Its pending messages are dropped.")) return;
      const result = await withFreshCheck(() => api("DELETE", path));
      if (result.status === 200) window.location.reload(); else status(result.json.message || "Remove failed.", false);
    });
  }
}

function startApplications() {
  const field = document.getElementById("client-credentials");
  const showCredentials = (client, what) => {
    field.value = client.clientSecret ? `client_id ${client.clientId}  client_secret ${client.clientSecret}` : `client_id ${client.clientId}`;
    field.hidden = false;
    field.select();
    status(`${what} ${client.clientSecret ? "Its secret is above, shown only now: paste it into the application." : ""}`.trim(), true);
  };
  document.getElementById("add-client").addEventListener("click", async () => {
    const body = {
      name: document.getElementById("client-name").value.trim(),
      redirectUris: document.getElementById("client-redirects").value.split("\n").map((line) => line.trim()).filter(Boolean),
      public: document.getElementById("client-public").checked,
      thirdParty: document.getElementById("client-third-party").checked,
      idTokenAlgorithm: document.getElementById("client-algorithm").value,
    };
    const result = await withFreshCheck(() => api("POST", "/dashboard/api/oidc-clients", body));
    if (result.status !== 200) return status(result.json.message || "The application was not added.", false);
    showCredentials(result.json, "Application added (reload to see it in the list).");
  });
  for (const row of document.querySelectorAll("tr[data-client]")) {
    const path = "/dashboard/api/oidc-clients/" + encodeURIComponent(row.dataset.client);
    row.querySelector(".toggle-client").addEventListener("click", async () => {
      const result = await withFreshCheck(() => api("PATCH", path, { enabled: row.dataset.enabled !== "true" }));
      if (result.status === 200) window.location.reload(); else status(result.json.message || "The change failed.", false);
    });
    const rotate = row.querySelector(".rotate-client");
    if (rotate) {
      rotate.addEventListener("click", async () => {
        if (!window.confirm("Make a new secret? The current one stops working at once.")) return;
        const result = await withFreshCheck(() => api("POST", path + "/rotate", {}));
        if (result.status !== 200) return status(result.json.message || "No new secret was made.", false);
        showCredentials(result.json, "New secret made.");
      });
    }
    row.querySelector(".delete-client").addEventListener("click", async () => {
      if (!window.confirm("Remove this application? Its sign-ins and tokens stop working.")) return;
      const result = await withFreshCheck(() => api("DELETE", path));
      if (result.status === 200) window.location.reload(); else status(result.json.message || "Remove failed.", false);
    });
  }
}

const signOut = document.getElementById("sign-out");
if (signOut) {
  signOut.addEventListener("click", async () => {
    await api("POST", "/dashboard/api/logout", {});
    window.location.assign("/dashboard/login");
  });
}
if (page === "login") document.getElementById("sign-in").addEventListener("click", signIn);
if (page === "setup" && document.getElementById("create-admin")) document.getElementById("create-admin").addEventListener("click", setUp);
if (page === "log") startLog();
if (page === "user") startUser();
if (page === "webhooks") startWebhooks();
if (page === "applications") startApplications();
