// Passkey demo: talks to this server's documented API with WebAuthn Level 3 JSON.
"use strict";

const $ = (id) => document.getElementById(id);

function show(status, body, ok) {
  $("status").textContent = status;
  $("status").className = ok ? "ok" : "error";
  $("result").textContent = JSON.stringify(body, null, 2);
}

// base64url <-> ArrayBuffer, for browsers without parse…FromJSON / toJSON.
function toBuffer(b64url) {
  const b64 = b64url.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((b64url.length + 3) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
}
function toB64url(buffer) {
  let s = "";
  for (const b of new Uint8Array(buffer)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function creationOptions(json) {
  if (window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON) {
    return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  }
  return {
    ...json,
    challenge: toBuffer(json.challenge),
    user: { ...json.user, id: toBuffer(json.user.id) },
    excludeCredentials: (json.excludeCredentials || []).map((c) => ({ ...c, id: toBuffer(c.id) })),
  };
}

function requestOptions(json) {
  if (window.PublicKeyCredential && PublicKeyCredential.parseRequestOptionsFromJSON) {
    return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  }
  return {
    ...json,
    challenge: toBuffer(json.challenge),
    allowCredentials: (json.allowCredentials || []).map((c) => ({ ...c, id: toBuffer(c.id) })),
  };
}

function credentialJSON(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = { clientDataJSON: toB64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64url(r.attestationObject);
    if (r.getTransports) response.transports = r.getTransports();
  } else {
    response.authenticatorData = toB64url(r.authenticatorData);
    response.signature = toB64url(r.signature);
    if (r.userHandle) response.userHandle = toB64url(r.userHandle);
  }
  return {
    id: credential.id, rawId: toB64url(credential.rawId), type: credential.type, response,
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
  };
}

async function post(path, body, bearer) {
  const headers = { "content-type": "application/json" };
  if (bearer) headers.authorization = "Bearer " + bearer;
  const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
  const json = await response.json();
  if (!response.ok) throw Object.assign(new Error(json.message || "request failed"), { body: json });
  return json;
}

async function get(path) {
  const response = await fetch(path);
  const json = await response.json();
  if (!response.ok) throw Object.assign(new Error(json.message || "request failed"), { body: json });
  return json;
}

let conditionalAbort = null;

async function register(event) {
  event.preventDefault();
  conditionalAbort?.abort();
  const username = $("register-username").value.trim();
  const displayName = $("register-display-name").value.trim();
  try {
    const query = new URLSearchParams();
    if (username) query.set("username", username);
    if (displayName) query.set("displayName", displayName);
    const options = await get("/generate-registration-options?" + query);
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
    const result = await post("/verify-registration", { username: username || undefined, challengeKey: options.challengeKey, cred: credentialJSON(credential) });
    show(result.isAnonymous ? "Registered an anonymous account." : `Registered ${result.username}.`, result, true);
  } catch (error) {
    show(error.body ? `Registration refused: ${error.body.error}` : `Registration failed: ${error.name}: ${error.message}`, error.body || { error: error.name, message: error.message }, false);
  } finally {
    startAutoFill();
  }
}

async function signIn(username, mediation) {
  const query = username ? "?username=" + encodeURIComponent(username) : "";
  const options = await get("/generate-authentication-options" + query);
  const request = { publicKey: requestOptions(options) };
  let renewal = null;
  if (mediation) {
    const controller = new AbortController();
    conditionalAbort = controller;
    request.mediation = mediation;
    request.signal = controller.signal;
    // AutoFill waits as long as the page is open, but the server's challenge expires after `timeout` ms: a little
    // before it does, start over with a fresh one, so a passkey picked later still signs in.
    const renewIn = Math.max(1000, (options.timeout || 60000) - 5000);
    renewal = setTimeout(() => { controller.renewing = true; controller.abort(); }, renewIn);
  }
  let credential;
  try {
    credential = await navigator.credentials.get(request);
  } finally {
    clearTimeout(renewal);
  }
  let result;
  try {
    result = await post("/verify-authentication", { challengeKey: options.challengeKey, cred: credentialJSON(credential) });
  } catch (error) {
    // The server holds no such passkey and says the browser's passkey manager may forget it (WebAuthn L3 §5.1.10):
    // only for the RP ID of these options and the passkey just used. The server sends it only when no account holds
    // the passkey (and, for one whose account it never knew, only when no other server shares its RP ID).
    const unknown = error.body?.signalUnknownCredential;
    if (unknown && unknown.rpId === options.rpId && unknown.credentialId === credential.id && PublicKeyCredential.signalUnknownCredential) {
      PublicKeyCredential.signalUnknownCredential(unknown).catch(() => {});
    }
    throw error;
  }
  // Signed in: tell the browser's passkey manager which passkeys the account still has and its current names, so a
  // passkey deleted on the server stops being offered and a rename shows in the passkey picker (WebAuthn L3 §5.1.10),
  // when the answer is about the account that signed in (the RP ID of the options and the user handle of the
  // assertion, as the SDK checks; nothing without a user handle). A list must name the passkey just used.
  const handle = credential.response.userHandle ? toB64url(credential.response.userHandle) : null;
  const about = (signal) => signal && signal.rpId === options.rpId && handle && signal.userId === handle;
  const accepted = result.signalAllAcceptedCredentials;
  if (about(accepted) && accepted.allAcceptedCredentialIds?.includes(credential.id) && PublicKeyCredential.signalAllAcceptedCredentials) {
    PublicKeyCredential.signalAllAcceptedCredentials(accepted).catch(() => {});
  }
  if (about(result.signalCurrentUserDetails) && PublicKeyCredential.signalCurrentUserDetails) {
    PublicKeyCredential.signalCurrentUserDetails(result.signalCurrentUserDetails).catch(() => {});
  }
  return result;
}

async function signInWith(username) {
  conditionalAbort?.abort();
  try {
    const result = await signIn(username, null);
    show(`Signed in as ${result.username || "an anonymous user"}.`, result, true);
  } catch (error) {
    show(error.body ? `Sign-in refused: ${error.body.error}` : `Sign-in failed: ${error.name}: ${error.message}`, error.body || { error: error.name, message: error.message }, false);
  } finally {
    startAutoFill();
  }
}

// AutoFill: a conditional request waits for the user to pick a passkey from the username field's suggestions.
// `/?autofill=off` turns it off, for automated browsers driving the buttons: a virtual authenticator answers a
// conditional request at once (NotAllowedError with no passkey, else a sign-in), which would race the buttons' ceremonies.
const autoFillOff = new URLSearchParams(location.search).get("autofill") === "off";
async function startAutoFill() {
  if (autoFillOff) return;
  if (!window.PublicKeyCredential || !PublicKeyCredential.isConditionalMediationAvailable) return;
  if (!(await PublicKeyCredential.isConditionalMediationAvailable())) return;
  try {
    const result = await signIn(null, "conditional");
    // Signed in: the page shows who. AutoFill starts again with the next ceremony from a button, not at once (a
    // virtual authenticator would answer a new conditional request at once, again and again).
    show(`Signed in as ${result.username || "an anonymous user"} (AutoFill).`, result, true);
  } catch (error) {
    if (conditionalAbort?.renewing) return startAutoFill();
    if (error.name === "AbortError") return;
    show(error.body ? `Sign-in refused: ${error.body.error}` : `AutoFill sign-in failed: ${error.name}`, error.body || { error: error.name }, false);
  }
}

// A recovery or onboarding link: /#link=pal_… (a fragment, so the token reaches no server log). It adds a passkey to
// the link's account once; a ceremony cancelled here does not use it up.
const linkToken = location.hash.startsWith("#link=") ? location.hash.slice("#link=".length) : null;
async function redeemLink() {
  conditionalAbort?.abort();
  try {
    const options = await post("/links/options", {}, linkToken);
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
    const result = await post("/links/verify", { challengeKey: options.challengeKey, cred: credentialJSON(credential) }, linkToken);
    // Used up: the token leaves the address bar and the page's history entry.
    history.replaceState(null, "", location.pathname + location.search);
    $("link-section").hidden = true;
    // A link that replaced the account's passkeys: the browser keeps only the new one for this account.
    if (result.replacedPasskeys > 0 && PublicKeyCredential.signalAllAcceptedCredentials) {
      PublicKeyCredential.signalAllAcceptedCredentials({ rpId: options.rp.id, userId: options.user.id, allAcceptedCredentialIds: [credential.id] }).catch(() => {});
    }
    const replaced = result.replacedPasskeys > 0 ? ` Your ${result.replacedPasskeys} other passkey${result.replacedPasskeys === 1 ? " was" : "s were"} removed.` : "";
    show(`Added a passkey to ${result.username || "your account"}.${replaced}`, result, true);
  } catch (error) {
    show(error.body ? `The link was refused: ${error.body.error}` : `Adding a passkey failed: ${error.name}: ${error.message}`, error.body || { error: error.name, message: error.message }, false);
  } finally {
    startAutoFill();
  }
}
if (linkToken) {
  $("link-section").hidden = false;
  $("link-button").addEventListener("click", redeemLink);
}

$("register-form").addEventListener("submit", register);
$("signin-form").addEventListener("submit", (event) => { event.preventDefault(); signInWith($("signin-username").value.trim()); });
$("signin-discoverable-button").addEventListener("click", () => signInWith(null));
if (!window.PublicKeyCredential) show("This browser does not support passkeys.", {}, false);
startAutoFill();
