// Passkey demo: talks to this server's documented API with WebAuthn Level 3 JSON.
"use strict";

const $ = (id) => document.getElementById(id);

// Whether this browser (or the app's web view) runs WebAuthn at all: every ceremony is checked against it first, so a
// web view without passkeys (no Associated Domains for this RP ID, an old WebKit) says so instead of failing obscurely.
const webAuthn = Boolean(window.PublicKeyCredential && navigator.credentials && navigator.credentials.create && navigator.credentials.get);
const unsupported = "Passkeys are not available here: this browser or app web view does not support WebAuthn.";

function show(status, body, ok) {
  $("status").textContent = status;
  $("status").className = ok ? "ok" : "error";
  $("result").textContent = JSON.stringify(body, null, 2);
  // On a phone the result is below the buttons: bring it into view.
  $("status").scrollIntoView({ block: "nearest" });
}

// A ceremony from a button is in progress: the buttons wait, and the page says what it waits for.
function busy(on) {
  for (const button of document.querySelectorAll("button")) button.disabled = on || !webAuthn;
  if (on) {
    $("status").textContent = "Waiting for your passkey…";
    $("status").className = "";
  }
}

// What went wrong, in words: the server's refusal by its code and message, the browser's errors by what they mean.
function failure(what, error) {
  if (error.body) return [`${what} refused: ${error.body.error}. ${error.body.message || ""}`.trim(), error.body];
  const reasons = {
    NotAllowedError: "the passkey prompt was closed, timed out, or no passkey was chosen.",
    InvalidStateError: "this device already holds a passkey for this account.",
    SecurityError: "this page's address does not match the server's RP ID.",
    AbortError: "it was cancelled.",
    TypeError: "the server could not be reached.",
  };
  const reason = reasons[error.name] || `${error.name}: ${error.message}`;
  return [`${what} failed: ${reason}`, { error: error.name, message: error.message }];
}

async function post(path, body, bearer) {
  const headers = { "content-type": "application/json" };
  if (bearer) headers.authorization = "Bearer " + bearer;
  const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
  const json = await response.json();
  if (!response.ok) throw Object.assign(new Error(json.message || "request failed"), { body: json });
  return json;
}

async function get(path, signal) {
  const response = await fetch(path, { signal });
  const json = await response.json();
  if (!response.ok) throw Object.assign(new Error(json.message || "request failed"), { body: json });
  return json;
}

async function register(event) {
  event.preventDefault();
  if (!webAuthn) return show(unsupported, {}, false);
  const username = $("register-username").value.trim();
  const displayName = $("register-display-name").value.trim();
  await stopAutoFill();
  busy(true);
  try {
    const query = new URLSearchParams();
    if (username) query.set("username", username);
    if (displayName) query.set("displayName", displayName);
    const options = await get("/generate-registration-options?" + query);
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
    const result = await post("/verify-registration", { username: username || undefined, challengeKey: options.challengeKey, cred: credentialJSON(credential) });
    show(result.isAnonymous ? `Registered an anonymous account, ${result.username}: its passkey carries that name.` : `Registered ${result.username}.`, result, true);
  } catch (error) {
    show(...failure("Registration", error), false);
  } finally {
    busy(false);
    startAutoFill();
  }
}

// A sign-in; with `controller`, the AutoFill one (conditional mediation), which the controller stops.
async function signIn(username, controller) {
  const query = username ? "?username=" + encodeURIComponent(username) : "";
  let options;
  try {
    options = await get("/generate-authentication-options" + query, controller?.signal);
  } catch (error) {
    throw Object.assign(error, { stage: "options" });
  }
  const request = { publicKey: requestOptions(options) };
  let renewal = null;
  if (controller) {
    request.mediation = "conditional";
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
  if (!webAuthn) return show(unsupported, {}, false);
  await stopAutoFill();
  busy(true);
  try {
    const result = await signIn(username, null);
    show(`Signed in as ${result.username}${result.isAnonymous ? " (anonymous)" : ""}.`, result, true);
  } catch (error) {
    show(...failure("Sign-in", error), false);
  } finally {
    busy(false);
    startAutoFill();
  }
}

// AutoFill: a conditional request waits for the user to pick a passkey from the username field's suggestions.
// `/?autofill=off` turns it off, for automated browsers driving the buttons: a virtual authenticator answers a
// conditional request at once (NotAllowedError with no passkey, else a sign-in), which would race the buttons' ceremonies.
const autoFillOff = new URLSearchParams(location.search).get("autofill") === "off";
// The running AutoFill request (its controller, and a promise that settles when it ended), the pending restart after
// a failure, and how long the next one waits.
let autoFill = null;
let autoFillRestart = null;
let autoFillBackoff = 0;

// Stops AutoFill and waits until the browser let its request go: a ceremony started while a conditional request is
// still pending fails ("A request is already pending").
async function stopAutoFill() {
  clearTimeout(autoFillRestart);
  const running = autoFill;
  autoFill = null;
  if (!running) return;
  running.controller.abort();
  await running.done;
}

function startAutoFill() {
  if (autoFillOff || autoFill || !webAuthn || !PublicKeyCredential.isConditionalMediationAvailable) return;
  clearTimeout(autoFillRestart);
  const controller = new AbortController();
  const run = { controller, done: null };
  autoFill = run;
  run.done = (async () => {
    try {
      if (!(await PublicKeyCredential.isConditionalMediationAvailable())) {
        if (autoFill === run) autoFill = null;
        return;
      }
      const result = await signIn(null, controller);
      autoFillBackoff = 0;
      // Signed in: the page shows who. AutoFill starts again with the next ceremony from a button, not at once (a
      // virtual authenticator would answer a new conditional request at once, again and again).
      if (autoFill === run) autoFill = null;
      show(`Signed in as ${result.username}${result.isAnonymous ? " (anonymous)" : ""} (AutoFill).`, result, true);
    } catch (error) {
      if (autoFill !== run) return;  // stopped for a button's ceremony
      autoFill = null;
      if (controller.renewing) {
        // The challenge was about to expire: start over with a fresh one.
        autoFillBackoff = 0;
        startAutoFill();
      } else if (error.stage === "options") {
        // No options (the server is down, or throttles this client): try again later, waiting longer each time, so an
        // open page never floods the server.
        autoFillBackoff = Math.min(60000, Math.max(5000, autoFillBackoff * 2));
        console.warn(`AutoFill: no sign-in options (${error.body?.error || error.name}); trying again in ${autoFillBackoff / 1000} s`);
        autoFillRestart = setTimeout(startAutoFill, autoFillBackoff);
      } else if (error.name !== "AbortError") {
        show(...failure("AutoFill sign-in", error), false);
      }
    }
  })();
}

// A recovery or onboarding link: /#link=pal_… (a fragment, so the token reaches no server log). It adds a passkey to
// the link's account once; a ceremony cancelled here does not use it up.
const linkToken = location.hash.startsWith("#link=") ? location.hash.slice("#link=".length) : null;
async function redeemLink() {
  if (!webAuthn) return show(unsupported, {}, false);
  await stopAutoFill();
  busy(true);
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
    show(`Added a passkey to ${result.username}.${replaced}`, result, true);
  } catch (error) {
    show(...failure(error.body ? "The link was" : "Adding a passkey", error), false);
  } finally {
    busy(false);
    startAutoFill();
  }
}
if (linkToken) {
  $("link-section").hidden = false;
  $("link-button").addEventListener("click", redeemLink);
}

$("register-form").addEventListener("submit", register);
$("signin-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const username = $("signin-username").value.trim();
  // An empty field would sign in without a username: that is the other button, so say so rather than do it.
  if (!username) return show("Enter a username, or use \"Sign in without a username\".", {}, false);
  signInWith(username);
});
$("signin-discoverable-button").addEventListener("click", () => signInWith(null));
if (!webAuthn) {
  show(unsupported, {}, false);
  busy(false);
} else if (PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable) {
  // A device without its own authenticator (no screen lock, a web view that may not use it) can still use a passkey
  // from a phone or a security key: say so rather than hide the buttons.
  PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable().then((available) => {
    if (!available && $("status").textContent === "Ready.") {
      $("status").textContent = "This device cannot make passkeys itself: use one on your phone (QR code) or a security key.";
    }
  }, () => {});
}
startAutoFill();
