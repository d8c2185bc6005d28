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

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("form[data-upload]"), upload);
    Array.prototype.forEach.call(document.querySelectorAll("button[data-copy]"), copy);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
