// Counsel console: small enhancements where JavaScript runs. Every page
// works without this file. No inline script: the CSP allows only 'self'.
(function () {
  "use strict";
  var MAX = 20 * 1024 * 1024;

  // Uploads show their progress: the form is sent with XMLHttpRequest;
  // the server answers 204 with the next address, or the page with the
  // error, whose message is shown next to the file input.
  function upload(form) {
    var input = form.querySelector("input[type=file]");
    var bar = form.querySelector("progress");
    var status = form.querySelector(".upload-status");
    var button = form.querySelector("button[type=submit]");
    form.addEventListener("submit", function (ev) {
      if (!window.FormData || !input || !input.files || input.files.length !== 1) {
        return; // the plain form posts, and the server explains
      }
      var f = input.files[0];
      if (f.size > MAX) {
        ev.preventDefault();
        status.textContent = f.name + " is larger than 20 MiB.";
        return;
      }
      ev.preventDefault();
      var xhr = new XMLHttpRequest();
      xhr.open("POST", form.action);
      xhr.setRequestHeader("X-Counsel-Upload", "1");
      xhr.upload.addEventListener("progress", function (e) {
        if (e.lengthComputable) {
          bar.value = Math.round((e.loaded / e.total) * 100);
          status.textContent = "Uploading " + f.name + ": " + bar.value + "%";
        }
      });
      xhr.addEventListener("load", function () {
        var next = xhr.getResponseHeader("X-Counsel-Upload");
        if (xhr.status === 204 && next) {
          // The next page is usually this one (with the new document):
          // a change of hash alone would not reload it.
          var u = new URL(next, window.location.href);
          if (u.pathname + u.search === window.location.pathname + window.location.search) {
            window.location.hash = u.hash;
            window.location.reload();
          } else {
            window.location.assign(u.href);
          }
          return;
        }
        var doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
        var msg = doc.querySelector("#e-file") || doc.querySelector(".banner p") || doc.querySelector("main p");
        status.textContent = msg ? msg.textContent : "The upload failed (" + xhr.status + ").";
        bar.hidden = true;
        button.disabled = false;
      });
      xhr.addEventListener("error", function () {
        status.textContent = "The upload failed: the connection was lost.";
        bar.hidden = true;
        button.disabled = false;
      });
      bar.hidden = false;
      bar.value = 0;
      button.disabled = true;
      status.textContent = "Uploading " + f.name + "…";
      xhr.send(new FormData(form));
    });
  }

  // Copy buttons copy the value of the input they name; the input stays
  // visible and selectable for browsers without a clipboard.
  function copy(button) {
    if (!navigator.clipboard) {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      var input = document.getElementById(button.getAttribute("data-copy"));
      navigator.clipboard.writeText(input.value).then(function () {
        button.firstChild.textContent = "Copied";
      }, function () {
        input.select();
      });
    });
  }

  // Passkeys (docs/decisions.md §20): a form marked data-passkey asks its
  // data-begin route for the options, runs the browser's WebAuthn call,
  // puts the credential (as PublicKeyCredential.toJSON writes it) in its
  // hidden field and posts itself. Without WebAuthn it stays hidden.
  function fromB64url(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) {
      s += "=";
    }
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) {
      out[i] = bin.charCodeAt(i);
    }
    return out.buffer;
  }

  function toB64url(buf) {
    var bytes = new Uint8Array(buf), s = "";
    for (var i = 0; i < bytes.length; i++) {
      s += String.fromCharCode(bytes[i]);
    }
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function credentialJSON(cred) {
    var r = cred.response;
    var out = {
      id: cred.id, rawId: toB64url(cred.rawId), type: cred.type,
      authenticatorAttachment: cred.authenticatorAttachment || null,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      response: {clientDataJSON: toB64url(r.clientDataJSON)}
    };
    if (r.attestationObject) {
      out.response.attestationObject = toB64url(r.attestationObject);
      out.response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      out.response.authenticatorData = toB64url(r.authenticatorData);
      out.response.signature = toB64url(r.signature);
      if (r.userHandle) {
        out.response.userHandle = toB64url(r.userHandle);
      }
    }
    return JSON.stringify(out);
  }

  function passkey(form) {
    if (!window.PublicKeyCredential || !window.fetch || !navigator.credentials) {
      return; // the form stays hidden; the page says why
    }
    var create = form.getAttribute("data-passkey") === "create";
    var status = form.querySelector(".passkey-status");
    var button = form.querySelector("button[type=submit]");
    var note = form.parentNode.querySelector(".passkey-unsupported");
    if (note) {
      note.hidden = true;
    }
    form.hidden = false;
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      if (create && !form.elements.name.value.trim()) {
        status.textContent = "Give the passkey a name first.";
        form.elements.name.focus();
        return;
      }
      var body = new URLSearchParams();
      body.set("csrf", form.elements.csrf.value);
      button.disabled = true;
      status.textContent = "Waiting for your passkey…";
      fetch(form.getAttribute("data-begin"), {method: "POST", body: body, credentials: "same-origin", headers: {Accept: "application/json"}})
        .then(function (res) {
          return res.json().then(function (j) { return {ok: res.ok, j: j}; });
        })
        .then(function (res) {
          if (res.j.confirm) {
            window.location.assign(res.j.confirm);
            return null;
          }
          if (!res.ok) {
            throw new Error(res.j.error || "the server refused");
          }
          form.elements.challengeId.value = res.j.challengeId;
          var o = res.j.options;
          o.challenge = fromB64url(o.challenge);
          if (create) {
            o.user.id = fromB64url(o.user.id);
            (o.excludeCredentials || []).forEach(function (c) { c.id = fromB64url(c.id); });
            return navigator.credentials.create({publicKey: o});
          }
          (o.allowCredentials || []).forEach(function (c) { c.id = fromB64url(c.id); });
          return navigator.credentials.get({publicKey: o});
        })
        .then(function (cred) {
          if (!cred) {
            return;
          }
          form.elements.credential.value = credentialJSON(cred);
          status.textContent = "Checking…";
          form.submit();
        })
        .catch(function (e) {
          button.disabled = false;
          status.textContent = e && e.name === "NotAllowedError" ?
            "No passkey was used: the request was cancelled or timed out. Try again." :
            e && e.name === "InvalidStateError" ? "This device already holds one of your passkeys." :
            "The passkey could not be used: " + (e && e.message ? e.message : "unknown error") + ".";
        });
    });
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("form[data-upload]"), upload);
    Array.prototype.forEach.call(document.querySelectorAll("button[data-copy]"), copy);
    Array.prototype.forEach.call(document.querySelectorAll("form[data-passkey]"), passkey);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
