// answerx run viewer: the little the pages need beyond HTML. Written by hand (no library):
// keyboard walking on an item page, and filter forms that leave empty fields out of the
// address, so the address stays short and stable.
"use strict";
document.addEventListener("keydown", function (event) {
  var target = event.target;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
  var rel = { j: "next", ArrowRight: "next", k: "prev", ArrowLeft: "prev", u: "up" }[event.key];
  if (!rel) return;
  var link = document.querySelector('a[rel="' + rel + '"]');
  if (link) { event.preventDefault(); window.location.href = link.href; }
});
document.addEventListener("submit", function (event) {
  var form = event.target;
  if (!form.matches || !form.matches("form.filters")) return;
  Array.prototype.forEach.call(form.elements, function (field) {
    if (field.name && field.value === "" && !field.disabled) field.disabled = true;
  });
});
// "copy link": the page's address (which holds the whole view) to the clipboard; where
// the clipboard is not offered, the address is selected in a box to copy by hand.
document.addEventListener("click", function (event) {
  var button = event.target;
  if (!button.matches || !button.matches("button.copy-link")) return;
  var address = window.location.href;
  var done = function () { button.textContent = button.getAttribute("data-copied"); };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(address).then(done, function () { showAddress(button, address); });
  } else {
    showAddress(button, address);
  }
});
function showAddress(button, address) {
  var box = document.createElement("input");
  box.value = address; box.readOnly = true; box.className = "address";
  button.replaceWith(box);
  box.select();
}
// A running run's page refreshes itself: every few seconds it reads its own address
// again and swaps in the new page body (counts, new items), without a reload, so the
// place on the page stays; not while a filter field is being edited. It stops once the
// run is no longer running (the new page has no "live" note).
(function () {
  var live = document.getElementById("live");
  if (!live || !window.fetch || !window.DOMParser) return;
  var every = 1000 * (parseFloat(live.getAttribute("data-every")) || 3);
  function refresh() {
    var editing = document.activeElement && document.activeElement.closest &&
      document.activeElement.closest("form");
    if (editing) { window.setTimeout(refresh, every); return; }
    fetch(window.location.href, { credentials: "same-origin" }).then(function (response) {
      if (!response.ok) throw new Error(String(response.status));
      return response.text();
    }).then(function (text) {
      var fresh = new DOMParser().parseFromString(text, "text/html").querySelector("main");
      var main = document.querySelector("main");
      if (fresh && main) main.innerHTML = fresh.innerHTML;
      if (document.getElementById("live")) window.setTimeout(refresh, every);
    }).catch(function () { window.setTimeout(refresh, every * 3); });
  }
  window.setTimeout(refresh, every);
})();
