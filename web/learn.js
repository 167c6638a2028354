// learn.html: lessons in memory planning. Each lesson is a data file in
// lessons/ (listed in lessons/index.json): a title, prose, a small graph
// (inline, fetched beside the lessons, or a built-in example), options,
// buttons that send the viewer its own messages (docs/embedding.md), and a
// task: conditions on the fields of one of the viewer's events, checked
// here by a generic test of paths and comparisons, with a hint for each
// wrong answer a learner is likely to give. Adding a lesson is adding a
// file (docs/lessons.md). The page is a host of the viewer like any other:
// it talks to it only by postMessage.
//
// The numbers in a lesson's words are the planner's: "{exact.arena_size}"
// in its text is filled from a plan the page asks a hidden viewer for (the
// lesson's file with its options, the file beside it, and its "plans"),
// so a planner that changes changes the text; claims the text makes in
// words are the lesson's "checks", which go test asserts and this page
// tests again on the live plans.
import { ViewerClient } from "./viewerclient.js";

// guard.js: framed by another site, the page does not start.
if (window.memplanFramed) throw new Error("memplan: framed by another site");

const $ = (id) => document.getElementById(id);
const main = new ViewerClient($("viewer"));
const beside = new ViewerClient($("beside"));
// engine plans what the words refer to, unseen: a viewer like the two on
// screen, driven by the same messages.
const engine = new ViewerClient($("engine"));
const state = {
  lessons: [], at: -1, armed: false, own: false, done: new Set(), shown: [null, null],
  facts: [],  // per lesson: its plans' facts once computed (a promise until then)
  known: [],  // per lesson: the facts, once they came
  hint: null, // the hint shown: a wrong answer's index, or -1 for the generic one
  stale: [],  // the checks of the lesson on screen that the live plans contradict
  answers: 0, // answers judged so far, right or wrong
  picking: null, // a pick from the list by keys, not yet an answer (below)
};
window.memplanLearn = state; // for tests and the curious

// ---- the checker: every condition holds on the event ----

const ops = {
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "in": (a, b) => Array.isArray(b) && b.includes(a),
  "!in": (a, b) => Array.isArray(b) && !b.includes(a),
  "has": (a, b) => Array.isArray(a) && a.includes(b),
  "exists": (a) => a !== undefined && a !== null && a !== "",
};

// field reads a dotted path ("tensor.tensor.name", "partners.length",
// "lesson.peak.live.name"): a key that a list does not have is read from
// each of its elements.
function field(obj, path) {
  return path.split(".").reduce((o, k) => {
    if (o === null || o === undefined) return undefined;
    if (Array.isArray(o) && !Object.hasOwn(o, k)) return o.map((e) => (e === null || e === undefined ? undefined : e[k]));
    return Object.hasOwn(o, k) ? o[k] : undefined;
  }, obj);
}

// holds says whether every condition holds: path (and other) read the
// event, fact reads the lesson's facts.
function holds(conds, ev, facts) {
  return conds.every((c) => {
    const op = ops[c.op];
    const other = "other" in c ? field(ev, c.other) : "fact" in c ? field(facts, c.fact) : c.value;
    return !!op && op(field(ev, c.path), other);
  });
}

// ---- lessons ----

async function loadLessons() {
  const index = await (await fetch("lessons/index.json")).json();
  return Promise.all(index.lessons.map(async (f) => {
    const r = await fetch("lessons/" + f);
    if (!r.ok) throw new Error("lessons/" + f + ": HTTP " + r.status);
    const l = Object.assign({ id: f }, await r.json());
    // A model beside the lessons (ONNX is binary): fetched once.
    for (const file of [l.file, l.beside && l.beside.file]) {
      if (!file || !file.url) continue;
      const m = await fetch("lessons/" + file.url);
      if (!m.ok) throw new Error("lessons/" + file.url + ": HTTP " + m.status);
      file.bytes = await m.arrayBuffer();
    }
    return l;
  }));
}

// fileOf is the file a viewer of the lesson shows: its own, or (side
// "beside") the one beside it when it has one.
function fileOf(l, side) {
  if (side === "beside" && l.beside.file) return { file: l.beside.file };
  return l;
}

function fileName(src) { return src.example || src.file.name; }

// request is the viewer message that shows a file with options.
function request(src, options) {
  if (src.example) return { type: "example", name: src.example, options };
  const f = src.file;
  const data = f.bytes ? f.bytes.slice(0) : f.graph ? JSON.stringify(f.graph) : f.csv.join("\n") + "\n";
  return { type: "load", name: f.name, data, options };
}

// ---- the facts: the plans the lesson's words refer to ----

let asked = null; // the engine's pending question: {want, resolve, reject}
engine.on((m) => {
  const q = asked;
  if (!q) return;
  if (m.type === "error") {
    asked = null;
    q.reject(new Error(m.message));
  } else if (q.want(m)) {
    asked = null;
    q.resolve(m);
  }
});

function ask(msg, want) {
  const answer = heard(want);
  engine.send(msg);
  return answer;
}

// heard waits for the engine's next message that want accepts.
function heard(want) {
  return new Promise((resolve, reject) => { asked = { want, resolve, reject }; });
}

// planFacts plans a file with options in the engine and reads what the
// words may refer to: the summary's fields, the tensors by name, and the
// time cursor's report on the step that sets the lower bound.
async function planFacts(src, options) {
  // Hidden, the cursor sends nothing of its own for the new plan.
  engine.send({ type: "cursor", step: -1 });
  const name = fileName(src);
  const s = await ask(request(src, options), (m) => m.type === "summary" && m.file === name);
  // Its tensors follow the summary, before anything else the engine says.
  const t = await heard((m) => m.type === "tensors" && m.file === name);
  const peak = await ask({ type: "peak" }, (m) => m.type === "cursor");
  const tensors = JSON.parse(new TextDecoder().decode(t.tensors_json));
  return Object.assign({}, s.summary, {
    tensors: Object.fromEntries(tensors.map((t) => [t.name, t])),
    peak: Object.fromEntries(Object.entries(peak).filter(([k]) => k !== "type" && k !== "source")),
  });
}

async function computeFacts(l) {
  const plans = [["lesson", l, l.options || {}]];
  if (l.beside) plans.push(["beside", fileOf(l, "beside"), l.beside.options || {}]);
  for (const [name, options] of Object.entries(l.plans || {})) plans.push([name, l, options]);
  const facts = {};
  for (const [name, src, options] of plans) facts[name] = await planFacts(src, options);
  // Every number the words may state, and every list's length, written
  // by Go: how a size reads is the engine's to say.
  const numbers = new Set();
  (function collect(v) {
    if (Number.isSafeInteger(v)) numbers.add(v);
    else if (Array.isArray(v)) { numbers.add(v.length); v.forEach(collect); }
    else if (v && typeof v === "object") Object.values(v).forEach(collect);
  })(facts);
  const list = [...numbers];
  const w = await ask({ type: "words", numbers: list }, (m) => m.type === "words");
  const said = new Map(list.map((n, k) => [n, { grouped: w.grouped[k], bytes: w.bytes[k] }]));
  return Object.defineProperty(facts, "words", { value: said }); // not a fact a path can name
}

let engineLine = Promise.resolve();
// factsFor is lesson i's facts, planned once, one lesson after another.
function factsFor(i) {
  if (!state.facts[i]) {
    const p = engineLine.then(() => computeFacts(state.lessons[i]));
    engineLine = p.catch(() => {});
    state.facts[i] = p.then((f) => { state.known[i] = f; return f; });
  }
  return state.facts[i];
}

// ---- text: `code` and {facts} ----

// Formats of a fact in the text: numbers in Go's words (the default
// groups thousands, bytes says them as a count of bytes), names as
// code, and lists of names as a list. said is the facts' words.
const formats = {
  bytes: (v, said) => typeof v === "number" && said.has(v) ? [said.get(v).bytes] : null,
  count: (v, said) => Array.isArray(v) && said.has(v.length) ? [said.get(v.length).grouped] : null,
  names: (v) => Array.isArray(v) ? names(v) : null,
  "": (v, said) => typeof v === "number" ? (said.has(v) ? [said.get(v).grouped] : null) :
    typeof v === "string" ? [code(v)] : Array.isArray(v) ? names(v) : null,
};

function code(s) {
  const c = document.createElement("code");
  c.textContent = s;
  return c;
}

// names lists names as code: "a", "a and b", "a, b and c".
function names(list) {
  if (!list.length) return ["none"];
  const out = [];
  list.forEach((n, k) => {
    if (k > 0) out.push(k === list.length - 1 ? " and " : ", ");
    out.push(code(String(n)));
  });
  return out;
}

// text sets s as text with `code` spans and {plan.path|format} facts of
// lesson i; nothing in it is HTML. A fact not known yet shows as "…".
function text(el, s, i = state.at) {
  const facts = state.known[i];
  el.replaceChildren(...String(s).split("`").flatMap((part, k) => {
    if (k % 2 === 1) return [code(part)];
    return part.split(/\{([^{}]+)\}/).map((piece, j) => {
      if (j % 2 === 0) return document.createTextNode(piece);
      const [path, format = ""] = piece.split("|");
      const span = document.createElement("span");
      span.className = "fact";
      span.dataset.fact = path;
      span.dataset.format = format;
      const v = facts ? (formats[format] || (() => null))(field(facts, path), facts.words) : null;
      if (v) span.replaceChildren(...v);
      else {
        span.textContent = "…";
        span.classList.add("pending");
      }
      return span;
    });
  }));
  return el;
}

// words writes the lesson's text: again when its facts come.
function words(i) {
  const l = state.lessons[i];
  const n = document.createElement("span");
  n.className = "num";
  n.textContent = (i + 1) + ". ";
  $("title").replaceChildren(n, text(document.createElement("span"), l.title, i));
  $("prose").replaceChildren(...l.prose.map((p) => text(document.createElement("p"), p, i)));
  text($("task-text"), l.task.text, i);
  if (state.done.has(i)) text($("verdict"), "Done. " + l.task.done, i);
  else $("verdict").textContent = "";
  $("retry").hidden = !state.done.has(i);
  showHint(state.done.has(i) ? null : state.hint);
  text($("caption"), l.caption || fileName(l), i);
  if (l.beside) text($("beside-caption"), l.beside.caption || "", i);
}

// showHint shows the hint for wrong answer k (-1: the generic one; null:
// none).
function showHint(k) {
  const l = state.lessons[state.at];
  state.hint = k;
  const h = $("hint");
  h.hidden = k === null;
  if (k === null) {
    h.replaceChildren();
    delete h.dataset.which;
    return;
  }
  h.dataset.which = String(k);
  text(h, "Not yet. " + (k >= 0 ? l.task.wrong[k].hint : l.task.hint));
}

// checkClaims tests the lesson's checks on its live plans: a planner that
// no longer does what the words say is shown, never passed over.
function checkClaims(i) {
  const l = state.lessons[i], facts = state.known[i];
  state.stale = (l.checks || []).filter((c) => {
    const other = "other" in c ? field(facts, c.other) : c.value;
    return !(ops[c.op] && ops[c.op](field(facts, c.path), other));
  }).map((c) => c.says);
  const el = $("stale");
  el.hidden = state.stale.length === 0;
  el.textContent = state.stale.length ? "The planner no longer bears out what this lesson says: " +
    state.stale.map((s) => "“" + s + "”").join("; ") + ". Please report it." : "";
}

function show(i, focus) {
  const l = state.lessons[i];
  state.at = i;
  state.armed = false; // until the lesson's own plan, and its facts, are in
  state.own = false;
  state.hint = null;
  state.shown = [null, null];
  history.replaceState(null, "", "#" + (i + 1));
  document.title = l.title + " · memplan lessons";
  $("actions").replaceChildren(...(l.actions || []).map((a) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = a.label;
    b.addEventListener("click", () => {
      if (a.send.type === "options") {
        for (const o of $("actions").children) o.setAttribute("aria-pressed", String(o === b));
      }
      main.send(a.send);
    });
    return b;
  }));
  $("actions").hidden = !(l.actions || []).length;
  $("task").classList.toggle("done", state.done.has(i));
  $("stale").hidden = true;
  $("readout").textContent = "";
  $("cursor-readout").textContent = "";
  $("beside-readout").textContent = "";
  $("beside-fig").hidden = !l.beside;
  document.querySelector(".stage").classList.toggle("two", !!l.beside);
  words(i);
  // A selection would carry over to a tensor of the same name in the
  // new graph and answer its task unasked.
  main.send({ type: "select", name: "" });
  // So would the time cursor, at a step of the old plan; a lesson starts
  // with the whole picture.
  main.send({ type: "cursor", step: -1 });
  $("viewer").classList.add("loading");
  $("beside").classList.toggle("loading", !!l.beside);
  main.send(request(l, l.options || {}));
  if (l.beside) beside.send(request(fileOf(l, "beside"), l.beside.options || {}));
  $("prev").disabled = i === 0;
  $("next").disabled = i === state.lessons.length - 1;
  for (const [k, b] of [...$("lesson-list").querySelectorAll("button")].entries()) {
    if (k === i) b.setAttribute("aria-current", "step");
    else b.removeAttribute("aria-current");
  }
  if (focus) $("title").focus();
  factsFor(i).then(() => {
    if (state.at !== i) return;
    words(i);
    checkClaims(i);
    arm();
    // The next lesson's plans, while this one is read.
    if (i + 1 < state.lessons.length) factsFor(i + 1);
  }, (err) => {
    if (state.at !== i) return;
    $("error").textContent = "The planner did not answer this lesson's questions: " + err.message;
    $("error").hidden = false;
  });
}

// arm starts judging answers once the lesson's own plan is on screen and
// the facts its task may compare with are known.
function arm() {
  state.armed = state.own && !!state.known[state.at];
}

function complete() {
  const i = state.at, l = state.lessons[i];
  if (state.done.has(i)) return;
  state.done.add(i);
  state.hint = null;
  $("task").classList.add("done");
  words(i);
  $("lesson-list").querySelectorAll("button")[i].classList.add("done");
}

// judge takes an event as the learner's answer when the task says it is
// one: right, one of the wrong answers the lesson knows, or another.
function judge(m) {
  const i = state.at, l = state.lessons[i], t = l.task;
  if (state.done.has(i) || m.type !== t.event) return;
  const facts = state.known[i];
  if (t.answer && !holds(t.answer, m, facts)) return;
  state.answers++;
  if (holds(t.when, m, facts)) {
    complete();
    return;
  }
  showHint((t.wrong || []).findIndex((w) => holds(w.when, m, facts)));
}

// readout says what the plan on screen costs, in the viewer's numbers
// and, when there is a budget, the planner's own verdict.
function readout(s) {
  const rows = Object.fromEntries(s.rows);
  let t = s.strategy + ": arena " + rows["arena"] + ", lower bound " + rows["lower bound"];
  if (s.proven) t += ", proven smallest";
  if (s.fit) t += " — " + s.fit.text;
  return t;
}

// placedLine is the planner's verdict on a placement by hand, with its
// numbers, as Go writes them.
function placedLine(m) {
  return m.text + " — " + m.rows.map(([k, v]) => k + " " + v).join("; ");
}

// cursorLine says what the time cursor's step holds, from the viewer's
// cursor event: for those who read rather than look, and for the
// keyboard. The live tensors are named bottom to top, the first dozen.
function cursorLine(c) {
  if (c.step < 0) return "";
  const list = (xs) => xs.length ? xs.join(", ") : "nothing";
  let t = "Step " + c.step + (c.step === c.peak ? " (the peak)" : "") + ": ";
  if (c.op) t += "op " + c.op + " reads " + list(c.reads) + " and writes " + list(c.writes) + ". ";
  const names = c.live.map((x) => x.name);
  t += Object.fromEntries(c.rows)["live"] + " live, bottom to top: " + list(names.slice(0, 12));
  if (names.length > 12) t += " and " + (names.length - 12) + " more";
  return t + ".";
}

// A hover shows the tensor under the pointer: what it is, when it lives
// and where it sits, from the plan record's own fields.
function tooltip(tip, frame, m) {
  if (m.type !== "hover") return;
  const t = m.tensor && m.tensor.tensor;
  tip.hidden = !t;
  if (!t) return;
  const b = document.createElement("b");
  b.textContent = t.name;
  // Go's rows for the tensor, in a line.
  const rows = Object.fromEntries(m.tensor.rows);
  const parts = [rows["live"], rows["size"], t.offset < 0 ? rows["offset"] : "offset " + rows["offset"]];
  if (rows["gpu buffer"]) parts.push("GPU buffer " + rows["gpu buffer"]);
  if (rows["view of"]) parts.push("a view of " + rows["view of"]);
  if (m.part === "guard") parts.push("its guard bytes");
  tip.replaceChildren(b, " " + (t.op === t.kind ? t.kind : t.op + " · " + t.kind), document.createElement("br"), parts.join(" · "));
  const w = frame.clientWidth;
  tip.style.left = Math.min(m.x + 14, Math.max(0, w - tip.offsetWidth - 4)) + "px";
  tip.style.top = (m.y + 16) + "px";
}
main.on((m) => tooltip($("tip"), $("viewer"), m));
beside.on((m) => tooltip($("beside-tip"), $("beside"), m));

// The tensors of the plan on screen, to select from the keyboard as a
// click on the plot does.
function tensorPicker(tensors) {
  const none = document.createElement("option");
  none.value = "";
  none.textContent = "—";
  $("pick-tensor").replaceChildren(none, ...tensors.map((t) => {
    const o = document.createElement("option");
    o.value = o.textContent = t.name;
    return o;
  }));
}

// A pick made with the mouse is an answer at once. One made with keys is
// shown as the keys move through the list (arrows and typing step
// through other tensors first) and is an answer only once the learner
// settles on it: Enter, or leaving the list. The viewer answers each
// pick with a select event, in order: sent lists the picks it has not
// answered yet, and an answer to one that a later pick superseded is
// not the learner's.
const picking = state.picking = { byKeys: false, sent: [], event: null, settled: false };
$("pick-tensor").addEventListener("pointerdown", () => { picking.byKeys = false; });
$("pick-tensor").addEventListener("keydown", (e) => {
  picking.byKeys = true;
  if (e.key === "Enter") {
    e.preventDefault();
    settlePick();
  }
});
$("pick-tensor").addEventListener("blur", () => settlePick());
$("pick-tensor").addEventListener("change", (e) => {
  picking.sent.push({ name: e.target.value, byKeys: picking.byKeys });
  picking.event = null;
  picking.settled = false;
  main.send({ type: "select", name: e.target.value });
});

// settlePick makes the pick the keys settled on an answer: now, if the
// viewer has answered it, else when it does.
function settlePick() {
  if (picking.sent.length) {
    picking.settled = true;
    return;
  }
  const m = picking.event;
  picking.event = null;
  if (m && state.armed) judge(m);
}

// heldPick says whether the select event m is not to be judged now: an
// answer to a superseded pick (never), or to the last pick made with
// keys before the learner settles on it (held for settlePick). Any other
// selection, such as a click on the plot, ends the picking.
function heldPick(m) {
  if (m.type !== "select" || !picking.sent.length) return false;
  const name = m.tensor ? m.tensor.tensor.name : "";
  if (picking.sent[0].name !== name) {
    Object.assign(picking, { sent: [], event: null, settled: false });
    return false;
  }
  const pick = picking.sent.shift();
  if (picking.sent.length) return true; // superseded
  if (!pick.byKeys || picking.settled) {
    picking.settled = false;
    return false;
  }
  picking.event = m;
  return true;
}

main.on((m) => {
  if (m.type === "select") $("pick-tensor").value = m.tensor ? m.tensor.tensor.name : "";
  if (m.type === "cursor") $("cursor-readout").textContent = cursorLine(m);
});

main.on((m) => {
  const l = state.lessons[state.at];
  if (!l) return;
  // A placement's tables (rev above 0) name the same tensors: the picker stays.
  if (m.type === "tensors" && !m.rev && m.file === fileName(l)) tensorPicker(JSON.parse(new TextDecoder().decode(m.tensors_json)));
  if (m.type === "summary" && m.file === fileName(l)) {
    $("viewer").classList.remove("loading");
    state.shown[0] = m.summary;
    $("readout").textContent = readout(m.summary);
    shareWorld();
    if (!state.own) {
      // The lesson's own plan: what the learner starts from, no answer.
      state.own = true;
      arm();
      return;
    }
  }
  if (m.type === "error") {
    $("viewer").classList.remove("loading");
    $("readout").textContent = m.message;
  }
  // Placing by hand: the planner's verdict on each move, in its words.
  if (m.type === "placed" && m.placing) $("readout").textContent = placedLine(m);
  if (!heldPick(m) && state.armed) judge(m);
});

beside.on((m) => {
  const l = state.lessons[state.at];
  if (!l || !l.beside || m.type !== "summary" || m.file !== fileName(fileOf(l, "beside"))) return;
  state.shown[1] = m.summary;
  $("beside").classList.remove("loading");
  $("beside-readout").textContent = readout(m.summary);
  shareWorld();
});

// Two plans of one lesson are drawn at one scale: the larger's.
function shareWorld() {
  const [a, b] = state.shown;
  if (!a || !b) return;
  const world = { type: "world", steps: Math.max(a.steps, b.steps), bytes: Math.max(a.arena_size, b.arena_size) };
  main.send(world);
  beside.send(world);
}

// Try again: the task answers back again, for another answer.
$("retry").addEventListener("click", () => {
  state.done.delete(state.at);
  $("task").classList.remove("done");
  words(state.at);
  $("task-text").focus();
});

$("prev").addEventListener("click", () => show(state.at - 1, true));
$("next").addEventListener("click", () => show(state.at + 1, true));

loadLessons().then((lessons) => {
  state.lessons = lessons;
  $("lesson-list").replaceChildren(...lessons.map((l, i) => {
    const li = document.createElement("li"), b = document.createElement("button");
    b.type = "button";
    b.textContent = (i + 1) + ". " + (l.short || l.title);
    b.title = l.title;
    b.addEventListener("click", () => show(i, true));
    li.append(b);
    return li;
  }));
  const want = parseInt(location.hash.slice(1), 10);
  show(want >= 1 && want <= lessons.length ? want - 1 : 0, false);
}, (err) => {
  $("error").textContent = "The lessons did not load: " + err.message;
  $("error").hidden = false;
});
