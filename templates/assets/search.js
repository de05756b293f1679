// Site search: reads the static index built with the site (newsroom/render/search.py).
// A query downloads meta.json, one shard per word (by first letter) and the document chunks of the hits shown.
(function () {
  "use strict";
  var form = document.querySelector("[data-search-index]");
  if (!form) { return; }
  var base = form.getAttribute("data-search-index");
  var input = form.querySelector("input[name=q]");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var MAX = 50;
  var cache = {};

  function fold(text) { return text.toLowerCase().normalize("NFKD").replace(/\p{M}/gu, ""); }
  function tokens(text) { return fold(text).match(/[\p{L}\p{N}]+/gu) || []; }
  function shardOf(token) { return /^[a-z0-9]/.test(token) ? token[0] : "_"; }
  function splitKey(token) { return shardOf(token) + (/^[a-z0-9]$/.test(token.charAt(1)) ? token.charAt(1) : "_"); }
  // Same rule as shards_for() in newsroom/render/search.py: a letter's shard, or its two-letter part once split.
  function shardsFor(word, keys) {
    var first = shardOf(word);
    if (keys.indexOf(first) >= 0) { return [first]; }
    if (word.length < 2) { return keys.filter(function (k) { return k.length === 2 && k[0] === first; }); }
    return keys.indexOf(splitKey(word)) >= 0 ? [splitKey(word)] : [];
  }
  function load(path) {
    if (!cache[path]) {
      cache[path] = fetch(base + path).then(function (r) { return r.ok ? r.json() : null; });
    }
    return cache[path];
  }
  function say(text) { status.textContent = text; }
  function message(name, count) {
    return form.getAttribute("data-" + name).replace("%(num)s", String(count));
  }

  function run(query) {
    var words = tokens(query);
    list.textContent = "";
    if (!words.length) { say(""); return; }
    load("meta.json").then(function (meta) {
      return Promise.all(words.map(function (w) {
        return Promise.all(shardsFor(w, meta.shards).map(function (k) { return load("shards/" + k + ".json"); }));
      })).then(function (shards) {
          var hits = null;
          words.forEach(function (word, i) {
            var found = new Set();
            shards[i].forEach(function (table) {
              Object.keys(table || {}).forEach(function (token) {
                if (token.indexOf(word) === 0) { table[token].forEach(function (id) { found.add(id); }); }
              });
            });
            hits = hits === null ? found : new Set(Array.from(hits).filter(function (id) { return found.has(id); }));
          });
          // Entries first, then stories newest first (they are indexed oldest first, from `meta.stories` on).
          var first = meta.stories === undefined ? meta.documents : meta.stories;
          var ids = Array.from(hits).sort(function (a, b) {
            return (a < first) !== (b < first) ? (a < first ? -1 : 1) : (a < first ? a - b : b - a);
          });
          say(ids.length ? message(ids.length === 1 ? "one" : "many", ids.length) : form.getAttribute("data-none"));
          ids = ids.slice(0, MAX);
          var chunks = Array.from(new Set(ids.map(function (id) { return Math.floor(id / meta.chunk); })));
          return Promise.all(chunks.map(function (c) { return load("docs/" + c + ".json"); })).then(function (loaded) {
            var byChunk = {};
            chunks.forEach(function (c, i) { byChunk[c] = loaded[i]; });
            ids.forEach(function (id) { show(byChunk[Math.floor(id / meta.chunk)][id % meta.chunk]); });
          });
        });
    }).catch(function () { say(form.getAttribute("data-error")); });
  }

  function show(doc) {
    var item = document.createElement("li");
    var link = document.createElement("a");
    link.href = doc[2];
    link.textContent = doc[1];
    var kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = form.getAttribute("data-kind-" + doc[0]);
    var snippet = document.createElement("p");
    snippet.textContent = doc[3];
    item.append(link, kind);
    if (doc[4]) {  // another language's text, shown under the fallback policy: mark it
      link.lang = snippet.lang = doc[4];
      var note = document.createElement("small");
      note.className = "untranslated-mark";
      note.textContent = form.getAttribute("data-untranslated");
      item.append(" ", note);
    }
    item.append(snippet);
    list.append(item);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    history.replaceState(null, "", "?q=" + encodeURIComponent(input.value));
    run(input.value);
  });
  var initial = new URLSearchParams(location.search).get("q");
  if (initial) { input.value = initial; run(initial); }
})();
