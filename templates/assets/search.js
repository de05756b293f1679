// Site search: reads the static index built with the site (newsroom/render/search.py).
// A query downloads meta.json, one shard per word (by first letter) and the document chunks of the hits shown.
// The functions before the page's use no DOM: under node, require() returns them (the tests run them).
(function () {
  "use strict";
  var PAGE = 50;  // hits shown at once; "More results" shows as many more
  // Kinds whose snippet is the page's own words, not the document's text: an issue's number and week
  // ("Issue 12 · Oct 26 – Nov 1, 2026"), a tag's count of stories ("3 hír").
  var OWN_SNIPPET = {issue: true, tag: true};
  var MARK = "=";  // ends a marked key of a shard: "gepi=" a word of a name, "gepi tanulas =" a whole name

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
  // The words of a text as typed, accents kept (case aside): a title that is the query with its accents.
  function typed(text) { return (text.toLowerCase().normalize("NFC").match(/[\p{L}\p{N}]+/gu) || []).join(" "); }
  function sameWords(title, query) { return typed(title) === typed(query); }

  // The hits of `words`, each word's shard tables given, ranked as search() in newsroom/render/search_query.py:
  // [{id, rank}], rank 0 if the words are one of the document's names, 1 if each is a word of its names,
  // 2 if each begins one, 3 else; in a rank entries and reference pages first, in the order of `entries`
  // (meta.json's), then tags (the ids in `tags`, meta.json's), in order, then stories and issues newest first
  // (the other ids; an issue before its stories).
  function rank(words, tables, entries, tags) {
    if (!words.length) { return []; }
    var hits = null, exact = null, begun = null;
    var both = function (a, b) {
      return a === null ? b : new Set(Array.from(a).filter(function (id) { return b.has(id); }));
    };
    words.forEach(function (word, i) {
      var found = new Set(), named = new Set(), marked = new Set();
      tables[i].forEach(function (table) {
        Object.keys(table || {}).forEach(function (token) {
          if (token.indexOf(word) !== 0) { return; }
          var into = token.slice(-1) !== MARK ? found : token.indexOf(" ") < 0 ? named : null;
          if (into) { table[token].forEach(function (id) { into.add(id); }); }
          if (token === word + MARK) { table[token].forEach(function (id) { marked.add(id); }); }
        });
      });
      hits = both(hits, found);
      begun = both(begun, named);
      exact = both(exact, marked);
    });
    var whole = new Set();
    tables[0].forEach(function (table) {
      ((table || {})[words.join(" ") + " " + MARK] || []).forEach(function (id) { whole.add(id); });
    });
    var ranked = Array.from(hits).map(function (id) {
      return {id: id, rank: whole.has(id) ? 0 : exact.has(id) ? 1 : begun.has(id) ? 2 : 3};
    });
    var tagIds = new Set(tags);
    var places = new Map(entries.map(function (id, place) { return [id, place]; }));
    var group = function (id) { return places.has(id) ? 0 : tagIds.has(id) ? 1 : 2; };
    return ranked.sort(function (a, b) {
      if (a.rank !== b.rank) { return a.rank - b.rank; }
      var x = group(a.id), y = group(b.id);
      if (x !== y) { return x - y; }
      return x === 0 ? places.get(a.id) - places.get(b.id) : x === 2 ? b.id - a.id : a.id - b.id;
    });
  }
  // The first page's whole-name hits (rank 0, first), those whose title is the query with its accents first.
  function byAccents(shown, titles, query) {
    var whole = shown.filter(function (hit) { return hit.rank === 0; });
    var same = whole.filter(function (hit, i) { return sameWords(titles[i], query); });
    var other = whole.filter(function (hit, i) { return !sameWords(titles[i], query); });
    return same.concat(other, shown.slice(whole.length));
  }

  // "%(num)s találat" with the count as the page's language writes a number: "13 000 találat", "1,300 results".
  function counted(text, count, lang) { return text.replace("%(num)s", count.toLocaleString(lang || undefined)); }

  var core = {fold: fold, tokens: tokens, shardOf: shardOf, splitKey: splitKey, shardsFor: shardsFor,
              sameWords: sameWords, rank: rank, byAccents: byAccents, counted: counted, PAGE: PAGE};
  if (typeof module === "object" && module.exports) { module.exports = core; }
  if (typeof document === "undefined") { return; }

  var form = document.querySelector("[data-search-index]");
  if (!form) { return; }
  var base = form.getAttribute("data-search-index");
  var input = form.querySelector("input[name=q]");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var more = document.getElementById("search-more");
  var masthead = document.getElementById("site-search");  // the masthead's own box: it holds the same query
  var title = document.title;  // the page's, while no search runs
  var cache = {};
  var current = 0;  // the latest search: an earlier one's answers, arriving late, are dropped
  var searched = null;  // the latest search's query

  function load(path) {
    if (!cache[path]) {
      cache[path] = fetch(base + path).then(function (r) { return r.ok ? r.json() : null; });
      cache[path].catch(function () { delete cache[path]; });  // a failed download is tried again next time
    }
    return cache[path];
  }
  function say(text) { status.textContent = text; }
  function message(name, count) {
    return counted(form.getAttribute("data-" + name), count, document.documentElement.lang);
  }

  function run(query) {
    var words = tokens(query);
    var search = ++current;
    searched = query;
    if (masthead) { masthead.value = query; }
    // The tab and the history name the search ("Search for “GPU” · …"); the query goes in by a function, so a
    // "$&" typed in it stays as typed.
    document.title = query.trim() ? form.getAttribute("data-title").replace("%(query)s", function () {
      return query.trim();
    }) : title;
    list.textContent = "";
    more.hidden = true;
    if (!words.length) { say(query.trim() ? form.getAttribute("data-none") : ""); return; }
    load("meta.json").then(function (meta) {
      return Promise.all(words.map(function (w) {
        return Promise.all(shardsFor(w, meta.shards).map(function (k) { return load("shards/" + k + ".json"); }));
      })).then(function (tables) {
        if (search !== current) { return; }
        var hits = rank(words, tables, meta.entries, meta.tags);
        say(hits.length ? message(hits.length === 1 ? "one" : "many", hits.length) : form.getAttribute("data-none"));
        return showFrom(meta, hits, 0, query, search);
      });
    }).catch(function () { if (search === current) { say(form.getAttribute("data-error")); } });
  }

  // Shows the hits from `start` on, a page of them, and offers the next page.
  function showFrom(meta, hits, start, query, search) {
    var shown = hits.slice(start, start + PAGE);
    var chunks = Array.from(new Set(shown.map(function (hit) { return Math.floor(hit.id / meta.chunk); })));
    return Promise.all(chunks.map(function (c) { return load("docs/" + c + ".json"); })).then(function (loaded) {
      if (search !== current) { return; }
      var row = function (hit) {
        return loaded[chunks.indexOf(Math.floor(hit.id / meta.chunk))][hit.id % meta.chunk];
      };
      if (start === 0) { shown = byAccents(shown, shown.map(function (hit) { return row(hit)[1]; }), query); }
      var links = shown.map(function (hit) { return show(row(hit)); });
      if (start > 0 && links.length) { links[0].focus(); }  // the button goes: the keyboard goes on from there
      more.hidden = start + PAGE >= hits.length;
      more.onclick = function () {
        more.hidden = true;
        showFrom(meta, hits, start + PAGE, query, search).catch(function () { say(form.getAttribute("data-error")); });
      };
    });
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
      link.lang = doc[4];
      if (!OWN_SNIPPET[doc[0]]) { snippet.lang = doc[4]; }
      // A tag's name in another language is its name here too, as its page heads it: no note.
      if (doc[0] !== "tag") {
        var note = document.createElement("small");
        note.className = "untranslated-mark";
        note.textContent = form.getAttribute("data-untranslated");
        item.append(" ", note);
      }
    }
    item.append(snippet);
    list.append(item);
    return link;
  }

  function fromAddress() {
    var query = new URLSearchParams(location.search).get("q") || "";
    if (query === searched) { return; }  // a step within the page (the skip link's #main): its hits stay
    input.value = query;
    run(query);
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    // Each search is a step of the history: Back returns to the one before.
    if (new URLSearchParams(location.search).get("q") !== input.value) {
      history.pushState(null, "", "?q=" + encodeURIComponent(input.value));
    }
    run(input.value);
  });
  window.addEventListener("popstate", fromAddress);
  fromAddress();
})();
