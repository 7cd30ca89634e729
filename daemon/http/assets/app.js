// The web app's only script (issue 30): a page with a live region (the inbox, a thread) listens to
// its event stream and, when new mail came, fetches itself again and swaps the region in place.
// Without it every page still works; with it nothing typed into a form is lost (only the region
// changes).
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
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) return;
        var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById(region.id);
        var now = document.getElementById(region.id);
        if (fresh && now) now.replaceWith(document.importNode(fresh, true));
      })
      .catch(function () {})
      .then(function () { busy = false; });
  });
})();
