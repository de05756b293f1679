// Preview only: reload when the server reports a new build.
(function () {
  var seen = null;
  function poll() {
    fetch("/__build_id", {cache: "no-store"}).then(function (r) { return r.text(); }).then(function (id) {
      if (seen !== null && id !== seen) { location.reload(); }
      seen = id;
    }).catch(function () {}).finally(function () { setTimeout(poll, 1000); });
  }
  poll();
})();
