// The web app's only script. A page with a live region (the inbox, a thread) listens to
// its event stream and, when new mail came, fetches itself again and swaps the region in place
// (nothing typed into a form is lost: only the region changes). Values to copy get a Copy button.
// Without it every page still works.
'use strict';
(function () {
  var region = document.querySelector('[data-live]');
  if (!region || !window.EventSource || !window.fetch || !window.DOMParser) return;
  var source = new EventSource(region.getAttribute('data-live'));
  var busy = false;
  source.addEventListener('inbox', function () {
    if (busy) return;
    busy = true;
    fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (r) {
        return r.ok ? r.text() : null;
      })
      .then(function (html) {
        if (html === null) return;
        var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById(region.id);
        var now = document.getElementById(region.id);
        if (fresh && now) now.replaceWith(document.importNode(fresh, true));
      })
      .catch(function () {})
      .then(function () {
        busy = false;
      });
  });
})();

// Copy buttons beside values to publish (DNS records, secrets): shown only where script runs.
(function () {
  if (!navigator.clipboard) return;
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    var field = button.previousElementSibling;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(field.value).then(
        function () {
          button.textContent = 'Copied';
        },
        function () {
          field.select();
        },
      );
    });
  });
})();
