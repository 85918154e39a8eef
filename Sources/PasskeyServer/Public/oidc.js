// The OpenID Provider's sign-in page: a passkey sign-in (AutoFill, a button, a username when the application suggested
// one) for the authorization request the page carries, then back to the application. No inline script: the page's
// CSP allows scripts from this server only.
"use strict";

const $ = (id) => document.getElementById(id);
const page = $("oidc");
const sealed = page.dataset.request;
const webAuthn = Boolean(window.PublicKeyCredential && navigator.credentials && navigator.credentials.get);
let autoFill = null;

function say(text, ok) {
  $("status").textContent = text;
  $("status").className = ok === undefined ? "" : ok ? "ok" : "error";
}

function buttons(on) {
  for (const button of document.querySelectorAll("button")) button.disabled = !on || (button.dataset.passkey && !webAuthn);
}

async function call(method, path, body, signal) {
  const init = { method, signal, headers: {} };
  if (body) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const json = await response.json();
  if (!response.ok) throw Object.assign(new Error(json.message || "request failed"), { body: json });
  return json;
}

// Where the provider sends the browser: the application's redirect URI, in its query or as a posted form.
function follow(answer) {
  if (answer.location) {
    window.location.assign(answer.location);
    return;
  }
  const form = document.createElement("form");
  form.method = "post";
  form.action = answer.formAction;
  for (const [name, value] of Object.entries(answer.formParameters || {})) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
}

function explain(error) {
  if (error.body) return error.body.message || error.body.error;
  const reasons = {
    NotAllowedError: "The passkey prompt was closed, timed out, or no passkey was chosen. Try again.",
    SecurityError: "This page's address does not match the passkeys' domain.",
    TypeError: "The server could not be reached.",
  };
  return reasons[error.name] || `${error.name}: ${error.message}`;
}

async function signIn(controller) {
  const username = $("username") ? $("username").value.trim() : "";
  const query = !controller && username ? "?username=" + encodeURIComponent(username) : "";
  const options = await call("GET", "/generate-authentication-options" + query, null, controller && controller.signal);
  const request = { publicKey: requestOptions(options) };
  if (controller) Object.assign(request, { mediation: "conditional", signal: controller.signal });
  const credential = await navigator.credentials.get(request);
  say("Checking your passkey…");
  return call("POST", "/oidc/sign-in", { request: sealed, cred: credentialJSON(credential), challengeKey: options.challengeKey });
}

async function withButton(action) {
  if (autoFill) autoFill.abort();
  autoFill = null;
  buttons(false);
  say("Waiting for your passkey…");
  try {
    follow(await action());
  } catch (error) {
    say(explain(error), false);
    buttons(true);
  }
}

async function startAutoFill() {
  if (!webAuthn || !$("username") || !PublicKeyCredential.isConditionalMediationAvailable) return;
  if (!(await PublicKeyCredential.isConditionalMediationAvailable())) return;
  autoFill = new AbortController();
  const controller = autoFill;
  try {
    const answer = await signIn(controller);
    buttons(false);
    follow(answer);
  } catch (error) {
    if (controller.signal.aborted || error.name === "AbortError") return;
    say(explain(error), false);
  }
}

if (!webAuthn) say("Passkeys are not available in this browser.", false);
buttons(true);
for (const button of document.querySelectorAll("[data-passkey]")) button.addEventListener("click", () => withButton(() => signIn(null)));
if ($("consent")) $("consent").addEventListener("click", () => withButton(() => call("POST", "/oidc/sign-in", { request: sealed, consent: true })));
if ($("decline")) $("decline").addEventListener("click", () => withButton(() => call("POST", "/oidc/sign-in", { request: sealed, consent: false })));
if ($("form-post")) $("form-post").submit();
if (page.dataset.autofill !== "off") startAutoFill();
