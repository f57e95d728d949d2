// keep serve's web page: search as you type, and the page's writes sent
// to the JSON API with the CSRF token. Everything a note holds is put in
// the page as text (textContent), never as markup.
"use strict";

const csrf = (document.querySelector('meta[name="keep-csrf"]') || {}).content || "";

function flash(message) {
  const box = document.getElementById("flash");
  if (!box) return;
  box.textContent = message;
  box.hidden = !message;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const noteHref = (id) => "/note/" + encodeURIComponent(id);

function firstLine(text, most) {
  const line = (String(text || "").split("\n").find((l) => l.trim()) || "").trim();
  const chars = Array.from(line);
  return chars.length <= most ? line : chars.slice(0, most).join("").trimEnd() + "…";
}

function tagChips(tags) {
  const list = el("ul", { class: "tags" });
  for (const [key, values] of Object.entries(tags || {})) {
    if (key.startsWith("_")) continue;
    for (const value of [].concat(values)) {
      const pair = key + "=" + value;
      list.append(el("li", {}, el("a", { class: "tag", href: "/?tag=" + encodeURIComponent(pair) }, pair)));
    }
  }
  return list.children.length ? list : null;
}

function timeOf(value) {
  if (!value) return null;
  return el("time", { datetime: value, title: value }, value.slice(0, 16).replace("T", " "));
}

function labelOf(note) {
  const title = [].concat((note.tags || {}).title || [])[0];
  return firstLine(title && String(title).trim() ? title : note.summary, 160);
}

function hitItem(hit, ranked) {
  const weak = ranked && hit.weak === true;
  const line = el("div", { class: "line" },
    el("a", { class: "note-link", href: noteHref(hit.id) }, labelOf(hit)));
  if (ranked) line.append(" ", el("span", { class: "score", title: "score" }, Number(hit.score).toFixed(3)));
  if (weak) line.append(" ", el("span", { class: "badge", title: "below the relevance floor" }, "weak"));
  const item = el("li", { class: weak ? "hit weak" : "hit" }, line, el("div", { class: "id muted" }, hit.id));
  if (ranked && hit.passage) item.append(el("p", { class: "passage" }, hit.passage));
  item.append(el("div", { class: "meta" }, timeOf(ranked ? hit.at : hit.updated), tagChips(hit.tags)));
  return item;
}

function showResults(hits, ranked, q) {
  const results = document.getElementById("results");
  const status = document.getElementById("status");
  if (!results || !status) return;
  const items = hits.map((hit) => hitItem(hit, ranked));
  results.replaceChildren(...items);
  results.dataset.query = q;
  const notice = document.querySelector("#main > .notice");
  if (notice) notice.remove();
  if (ranked) {
    status.textContent = hits.length === 0 ? "No notes match." : hits.length === 1 ? "1 note." : hits.length + " notes, best first.";
    if (hits.length && hits.every((h) => h.weak === true)) {
      results.before(el("p", { class: "notice" }, "No close match: every result is below the relevance floor."));
    }
  } else {
    status.textContent = "Newest notes";
  }
  performance.mark("keep:results");
}

let asked = 0;
let timer = null;

async function search(form) {
  const mine = ++asked;
  const fields = new FormData(form);
  const q = String(fields.get("q") || "").trim();
  const params = new URLSearchParams();
  for (const [key, value] of fields) {
    const text = String(value).trim();
    if (text && !(key === "mode" && text === "hybrid")) params.set(key, text);
  }
  history.replaceState(null, "", params.toString() ? "/?" + params : "/");
  const api = new URLSearchParams(params);
  api.delete("q");
  api.set("limit", "20");
  if (q) api.set("q", q);
  else api.delete("mode");
  try {
    const response = await fetch((q ? "/v1/find?" : "/v1/notes?") + api, { headers: { Accept: "application/json" } });
    const body = await response.json();
    if (mine !== asked) return;
    if (!response.ok) {
      flash(body.error || "the search failed");
      return;
    }
    flash("");
    showResults(body, Boolean(q), q);
  } catch (error) {
    if (mine === asked) flash("the server did not answer: " + error.message);
  }
}

function wireSearch() {
  const form = document.getElementById("find");
  const q = document.getElementById("q");
  if (!form || !q) return;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => search(form), 120);
  };
  form.addEventListener("input", soon);
  form.addEventListener("change", soon);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(timer);
    search(form);
  });
  q.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown") {
      const first = document.querySelector("#results a.note-link");
      if (first) {
        event.preventDefault();
        first.focus();
      }
    }
  });
  if (q.value) q.setSelectionRange(q.value.length, q.value.length);
}

function bodyOf(form) {
  const body = form.dataset.body ? JSON.parse(form.dataset.body) : {};
  for (const input of form.querySelectorAll("input[name]")) {
    const value = input.value.trim();
    if (!value) continue;
    body[input.name] = input.hasAttribute("data-list") ? [value] : value;
  }
  return body;
}

function wireActions() {
  for (const form of document.querySelectorAll("form.act")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = form.querySelector("button");
      if (button) button.disabled = true;
      try {
        const response = await fetch(form.getAttribute("action"), {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Keep-CSRF": csrf },
          body: JSON.stringify(bodyOf(form)),
        });
        if (response.ok) {
          location.reload();
          return;
        }
        const text = await response.text();
        let message = text;
        try { message = JSON.parse(text).error || text; } catch (_) { /* plain text */ }
        flash(message.trim());
      } catch (error) {
        flash("the server did not answer: " + error.message);
      }
      if (button) button.disabled = false;
    });
  }
}

wireSearch();
wireActions();
if (document.getElementById("results")) performance.mark("keep:results");
