// The search page as a reader uses it, under node: templates/assets/search.js runs on a small stand-in for the
// page's DOM (the form's attributes as built), reads the built index from disk, and each step prints what the
// reader sees. Used by tests/test_site_search.py:
//   node search_page.js SCRIPT SITE FORM_ATTRIBUTES_JSON STEPS_JSON LANG TITLE
// A step is ["open", "?q=…"], ["submit", text], ["back"], ["fragment"] (a link to a part of the page), ["more"]
// or ["slow", shard, ms] (that shard file answers ms later: a search overtaken by the next one). No element's
// HTML is ever set: innerHTML throws.
"use strict";
const fs = require("fs");
const path = require("path");
const [script, site, formJson, stepsJson, lang, title] = process.argv.slice(2);

class Element {
  constructor(tag, attributes) {
    this.tag = tag;
    this.attributes = Object.assign({}, attributes || {});
    this.children = [];
    this.listeners = {};
    this.hidden = "hidden" in this.attributes;
    this.value = "";
  }
  getAttribute(name) { return name in this.attributes ? this.attributes[name] : null; }
  addEventListener(type, listener) { (this.listeners[type] = this.listeners[type] || []).push(listener); }
  dispatch(type) {
    const event = {type: type, defaultPrevented: false, preventDefault() { this.defaultPrevented = true; }};
    (this.listeners[type] || []).forEach((listener) => listener(event));
    if (type === "click" && this.onclick) { this.onclick(event); }
    return event;
  }
  append(...nodes) { nodes.forEach((node) => this.children.push(typeof node === "string" ? {text: node} : node)); }
  get textContent() {
    return this.children.map((node) => node.text !== undefined ? node.text : node.textContent).join("");
  }
  set textContent(text) { this.children = text === "" ? [] : [{text: String(text)}]; }
  set innerHTML(html) { throw new Error("innerHTML set to " + html); }
  insertAdjacentHTML() { throw new Error("insertAdjacentHTML used"); }
  querySelector(selector) { return selector === "input[name=q]" ? input : null; }
  focus() { focused = this; }
}

const form = new Element("form", JSON.parse(formJson));
const input = new Element("input");
const byId = {"search-status": new Element("p"), "search-results": new Element("ol"),
              "search-more": new Element("button", {hidden: ""}), "site-search": new Element("input")};
const windowListeners = {};
const entries = [];  // the history's addresses
let delays = {};
let focused = null;  // the element with the keyboard's focus, if the script moved it
let pending = 0;  // answers not yet given: a step waits for every one

global.document = {
  documentElement: {lang: lang},
  querySelector: (selector) => selector === "[data-search-index]" ? form : null,
  getElementById: (id) => byId[id] || null,
  createElement: (tag) => new Element(tag),
  title: title || "",
};
global.window = {addEventListener: (type, listener) => { windowListeners[type] = listener; }};
global.location = {search: ""};
global.history = {
  pushState(state, title, url) { entries.push(url); location.search = url; },
  replaceState(state, title, url) { entries[entries.length - 1] = url; location.search = url; },
};
global.fetch = (url) => {
  const file = path.join(site, decodeURIComponent(url));
  const answer = () => fs.existsSync(file) ? {ok: true, json: () => Promise.resolve(JSON.parse(fs.readFileSync(file)))}
    : {ok: false, json: () => Promise.reject(new Error("404"))};
  const key = Object.keys(delays).find((name) => url.endsWith("/" + name));
  pending += 1;
  return new Promise((resolve) => setTimeout(() => { pending -= 1; resolve(answer()); }, key ? delays[key] : 0));
};

function seen() {
  const results = byId["search-results"].children.map((item) => {
    const [link, kind] = item.children;
    const mark = item.children.find((node) => node.className === "untranslated-mark");
    const snippet = item.children[item.children.length - 1];
    return {href: link.href, title: link.textContent, kind: kind.textContent, snippet: snippet.textContent,
            lang: link.lang || "", marked: mark ? mark.textContent : "", snippet_lang: snippet.lang || ""};
  });
  return {address: location.search, query: input.value, masthead: byId["site-search"].value, title: document.title,
          status: byId["search-status"].textContent, results: results,
          more: !byId["search-more"].hidden, focus: focused ? focused.textContent : null};
}

async function settle() {
  do { await new Promise((resolve) => setTimeout(resolve, 1)); } while (pending);
  await new Promise((resolve) => setTimeout(resolve, 1));  // what the last answers start runs to its end
}

(async () => {
  const out = [];
  for (const [action, arg, ms] of JSON.parse(stepsJson)) {
    if (action === "open") {
      location.search = arg;
      entries.push(arg);
      require(path.resolve(script));
    } else if (action === "submit") {
      input.value = arg;
      form.dispatch("submit");
    } else if (action === "back") {
      entries.pop();
      location.search = entries[entries.length - 1] || "";
      (windowListeners.popstate || (() => {}))({});  // a page without a listener stays as it is
    } else if (action === "fragment") {  // a link to a part of the page: a step of the history, the same search
      entries.push(location.search);
      (windowListeners.popstate || (() => {}))({});
    } else if (action === "more") {
      byId["search-more"].dispatch("click");
    } else if (action === "slow") {
      delays[arg] = ms;
      continue;
    }
    if (action !== "submit" || !Object.keys(delays).length) { await settle(); }
    out.push(seen());
    if (action === "submit" && Object.keys(delays).length) { delays = {}; }
  }
  console.log(JSON.stringify(out));
})().catch((error) => { console.error(error.stack); process.exit(1); });
