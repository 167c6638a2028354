// compare.html: two plans side by side. The planner worker plans both
// sides and compares them (planner.DiffPlans, in Go); this page shows the
// deltas and the tensors that moved, and hands each side's verified plan
// record to its own viewer, drawn at one scale and moved by one camera.
// Names from files are set as text, never as HTML.
import { ViewerClient } from "./viewerclient.js";

// guard.js: framed by another site, the page does not start.
if (window.memplanFramed) throw new Error("memplan: framed by another site");

const $ = (id) => document.getElementById(id);
const viewers = [new ViewerClient($("viewer-a")), new ViewerClient($("viewer-b"))];
const forms = [$("side-a"), $("side-b")];
const picked = [null, null]; // files opened with each side's picker
const SAME = "\u0000same"; // B's "same file as A"
const state = { diff: null, shown: [null, null], selected: "", id: 0 };
window.memplanCompare = state; // for tests and the curious

// ---- the planner: runtime.js's pool, as the viewer runs it ----

const runtime = new MemplanRuntime(new URL(".", location.href));

// ---- the form: Go's strategies and examples, from the viewer's ready ----

viewers[0].on((m) => {
  if (m.type !== "ready" || forms[0].elements.strategy.options.length) return;
  for (const [k, f] of forms.entries()) {
    f.elements.strategy.replaceChildren(...m.strategies.map((s) => option(s, s)));
    f.elements.strategy.value = m.defaults.strategy;
    f.elements.pick.accept = (m.file_types || []).join(","); // the formats Go reads
    const files = m.examples.map((n) => option("example:" + n, n));
    f.elements.file.replaceChildren(...(k === 1 ? [option(SAME, "same as A")] : []), ...files);
  }
  // The first comparison: the page's URL may name it (?file=, ?a=, ?b=
  // strategies), else the viewer's first example, its default strategy
  // against no reuse at all, which shows what reuse saves.
  const q = new URLSearchParams(location.search);
  const file = q.get("file") || m.examples[0];
  forms[0].elements.file.value = "example:" + file;
  forms[0].elements.strategy.value = q.get("a") || m.defaults.strategy;
  forms[1].elements.strategy.value = q.get("b") || m.baseline;
  compare();
});

function option(value, text) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  return o;
}

for (const [k, f] of forms.entries()) {
  f.elements.open.addEventListener("click", () => f.elements.pick.click());
  f.elements.pick.addEventListener("change", (e) => {
    const file = e.target.files[0];
    if (!file) return;
    picked[k] = file;
    const sel = f.elements.file;
    let o = [...sel.options].find((x) => x.value === "picked:");
    if (!o) sel.append(o = option("picked:", ""));
    o.textContent = file.name;
    sel.value = "picked:";
    compare();
  });
}
$("sides").addEventListener("submit", (e) => { e.preventDefault(); compare(); });

async function side(k) {
  const f = forms[k].elements;
  let which = k;
  if (f.file.value === SAME) which = 0;
  const fw = forms[which].elements;
  const options = { strategy: f.strategy.value, f32_uniform: f.f32_uniform.checked, symbols_text: f.symbols_text.value.trim() };
  if (fw.file.value.startsWith("example:")) {
    // The built-in examples, as the site serves them beside its pages.
    const name = fw.file.value.slice(8);
    const resp = await fetch("examples/" + encodeURIComponent(name));
    if (!resp.ok) throw new Error("fetching the example " + name + ": HTTP " + resp.status);
    const data = await resp.arrayBuffer();
    return [{ name, data, options }, [data]];
  }
  const data = await picked[which].arrayBuffer();
  return [{ name: picked[which].name, data, options }, [data]];
}

async function compare() {
  const id = ++state.id;
  $("status").textContent = "planning both…";
  $("error").hidden = true;
  let m;
  try {
    const [a, ta] = await side(0), [b, tb] = await side(1);
    m = await runtime.ask(0, { type: "diff", a, b }, [...ta, ...tb]);
  } catch (err) {
    m = { type: "error", error: { kind: "input", message: String(err && err.message ? err.message : err) } };
  }
  if (id !== state.id) return; // a newer comparison superseded this one
  $("status").textContent = "";
  if (m.type === "error") {
    if (m.error.kind === "cancelled") return;
    $("error").textContent = m.error.message;
    $("error").hidden = false;
    return;
  }
  show(m);
}

// ---- the result ----

function show(m) {
  const d = m.diff;
  state.diff = d;
  state.shown = [null, null];
  $("label-a").textContent = "A";
  $("label-b").textContent = "B";
  $("caption-a").textContent = "A: " + d.a.label;
  $("caption-b").textContent = "B: " + d.b.label;
  $("caption-a").title = d.a.label;
  $("caption-b").title = d.b.label;
  $("totals").tBodies[0].replaceChildren(...d.totals.map((r) => row([r.what, r.a, r.b, r.delta])));
  $("changed-title").textContent = d.changed.length + " of " + d.matched + " matched tensors changed";
  $("changed").tBodies[0].replaceChildren(...d.changed.map((c) => {
    const tr = row([c.name, off(c.offset_a), off(c.offset_b), c.birth_a + "–" + c.death_a, c.birth_b + "–" + c.death_b, c.size_a, c.size_b, c.what]);
    tr.tabIndex = 0;
    tr.dataset.name = c.name;
    return tr;
  }));
  const only = [];
  if (d.only_a.length) only.push("only in A: " + d.only_a.join(" "));
  if (d.only_b.length) only.push("only in B: " + d.only_b.join(" "));
  $("only").textContent = only.join(" · ");
  $("result").hidden = false;
  // Each viewer shows its side's record as it is (it checks it again).
  for (const [k, v] of viewers.entries()) v.send({ type: "load", name: "ab"[k] + ".plan.json", data: m.plans[k] });
  // The first moved tensor is highlighted in both.
  state.selected = d.changed.length ? d.changed[0].name : "";
}

const off = (o) => (o < 0 ? "–" : o);

function row(cells) {
  const tr = document.createElement("tr");
  for (const [i, c] of cells.entries()) {
    const td = document.createElement(i === 0 ? "th" : "td");
    if (i === 0) td.scope = "row";
    td.textContent = String(c);
    tr.append(td);
  }
  return tr;
}

// Once both viewers show their side, one scale for both: the larger
// plan's steps and bytes.
for (const [k, v] of viewers.entries()) {
  v.on((m) => {
    if (m.type !== "summary" || !state.diff || m.file !== "ab"[k] + ".plan.json") return;
    state.shown[k] = m.summary;
    if (!state.shown[0] || !state.shown[1]) return;
    const d = state.diff;
    const world = { type: "world", steps: Math.max(d.a.steps, d.b.steps), bytes: Math.max(d.a.arena_size, d.b.arena_size) };
    for (const w of viewers) w.send(world);
    select(state.selected);
  });
  v.on((m) => { if (m.type === "select" && m.tensor) markRow(m.tensor.tensor.name); });
  // One camera: the user's pan or zoom in one viewer moves the other
  // (once both show their side at the shared scale). A camera request is
  // not echoed as an event, so this does not bounce back.
  v.on((m) => {
    if (m.type !== "camera" || !state.shown[0] || !state.shown[1]) return;
    viewers[1 - k].send({ type: "camera", x0: m.x0, y0: m.y0, x1: m.x1, y1: m.y1 });
  });
}

function select(name) {
  state.selected = name;
  for (const v of viewers) v.send({ type: "select", name });
  markRow(name);
}

function markRow(name) {
  for (const tr of $("changed").tBodies[0].rows) tr.classList.toggle("selected", tr.dataset.name === name);
}

$("changed").addEventListener("click", (e) => {
  const tr = e.target.closest("tr[data-name]");
  if (tr) select(tr.dataset.name);
});
$("changed").addEventListener("keydown", (e) => {
  const tr = e.target.closest("tr[data-name]");
  if (!tr) return;
  if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select(tr.dataset.name); }
  if (e.key === "ArrowDown" && tr.nextElementSibling) { e.preventDefault(); tr.nextElementSibling.focus(); }
  if (e.key === "ArrowUp" && tr.previousElementSibling) { e.preventDefault(); tr.previousElementSibling.focus(); }
});
