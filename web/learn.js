// learn.html: lessons in memory planning. Each lesson is a data file in
// lessons/ (listed in lessons/index.json): a title, prose, a small graph
// (inline, or a built-in example), options, buttons that send the viewer
// its own messages (docs/embedding.md), and a task: a condition on the
// fields of one of the viewer's events, checked here by a generic test of
// paths and comparisons. Adding a lesson is adding a file. The page is a
// host of the viewer like any other: it talks to it only by postMessage.
import { ViewerClient } from "./viewerclient.js";

// guard.js: framed by another site, the page does not start.
if (window.memplanFramed) throw new Error("memplan: framed by another site");

const $ = (id) => document.getElementById(id);
const main = new ViewerClient($("viewer"));
const beside = new ViewerClient($("beside"));
const state = { lessons: [], at: -1, armed: false, done: new Set(), shown: [null, null] };
window.memplanLearn = state; // for tests and the curious

// ---- the checker: every condition of the task holds on the event ----

const ops = {
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "in": (a, b) => Array.isArray(b) && b.includes(a),
  "exists": (a) => a !== undefined && a !== null && a !== "",
};

// field reads a dotted path ("tensor.tensor.name", "partners.length").
function field(obj, path) {
  return path.split(".").reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), obj);
}

function holds(task, ev) {
  if (ev.type !== task.event) return false;
  return task.when.every((c) => {
    const op = ops[c.op];
    const other = "other" in c ? field(ev, c.other) : c.value;
    return !!op && op(field(ev, c.path), other);
  });
}

// ---- lessons ----

async function loadLessons() {
  const index = await (await fetch("lessons/index.json")).json();
  return Promise.all(index.lessons.map(async (f) => {
    const r = await fetch("lessons/" + f);
    if (!r.ok) throw new Error("lessons/" + f + ": HTTP " + r.status);
    return Object.assign({ id: f }, await r.json());
  }));
}

// text sets s as text with `code` spans; nothing in it is HTML.
function text(el, s) {
  el.replaceChildren(...String(s).split("`").map((part, i) => {
    if (i % 2 === 0) return document.createTextNode(part);
    const c = document.createElement("code");
    c.textContent = part;
    return c;
  }));
  return el;
}

function fileName(l) { return l.example || l.file.name; }

// request is the viewer message that shows the lesson's graph.
function request(l, options) {
  if (l.example) return { type: "example", name: l.example, options };
  const f = l.file;
  const data = f.graph ? JSON.stringify(f.graph) : f.csv.join("\n") + "\n";
  return { type: "load", name: f.name, data, options };
}

function show(i, focus) {
  const l = state.lessons[i];
  state.at = i;
  state.armed = false; // until the lesson's own plan is on screen
  state.shown = [null, null];
  history.replaceState(null, "", "#" + (i + 1));
  document.title = l.title + " · memplan lessons";
  text($("title"), (i + 1) + ". " + l.title);
  $("prose").replaceChildren(...l.prose.map((p) => text(document.createElement("p"), p)));
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
  text($("task-text"), l.task.text);
  $("verdict").textContent = "";
  $("task").classList.toggle("done", state.done.has(i));
  if (state.done.has(i)) text($("verdict"), "Done. " + l.task.done);
  $("caption").textContent = l.caption || fileName(l);
  $("readout").textContent = "";
  $("beside-readout").textContent = "";
  $("beside-fig").hidden = !l.beside;
  document.querySelector(".stage").classList.toggle("two", !!l.beside);
  // A selection would carry over to a tensor of the same name in the
  // new graph and answer its task unasked.
  main.send({ type: "select", name: "" });
  // So would the time cursor, at a step of the old plan; a lesson starts
  // with the whole picture.
  main.send({ type: "cursor", step: -1 });
  $("viewer").classList.add("loading");
  $("beside").classList.toggle("loading", !!l.beside);
  main.send(request(l, l.options || {}));
  if (l.beside) {
    $("beside-caption").textContent = l.beside.caption || "";
    beside.send(request(l, l.beside.options || {}));
  }
  $("prev").disabled = i === 0;
  $("next").disabled = i === state.lessons.length - 1;
  for (const [k, b] of [...$("lesson-list").querySelectorAll("button")].entries()) {
    if (k === i) b.setAttribute("aria-current", "step");
    else b.removeAttribute("aria-current");
  }
  if (focus) $("title").focus();
}

function complete() {
  const i = state.at, l = state.lessons[i];
  if (state.done.has(i)) return;
  state.done.add(i);
  $("task").classList.add("done");
  text($("verdict"), "Done. " + l.task.done);
  $("lesson-list").querySelectorAll("button")[i].classList.add("done");
}

// readout says what the plan on screen costs, in the viewer's numbers
// and, when there is a budget, the planner's own verdict.
function readout(s) {
  const n = (b) => b.toLocaleString("en") + " bytes";
  let t = s.strategy + ": arena " + n(s.arena_size) + ", lower bound " + n(s.lower_bound);
  if (s.fit) t += " — " + s.fit.text;
  return t;
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
  const where = t.offset < 0 ? "not in the arena" : "offset " + t.offset.toLocaleString("en");
  tip.replaceChildren(b, " " + (t.op === t.kind ? t.kind : t.op + " · " + t.kind), document.createElement("br"),
    "steps " + t.birth + "–" + t.death + " · " + t.size.toLocaleString("en") + " bytes · " + where +
    (t.root ? " · a view of " + t.root : "") + (m.part === "guard" ? " · its guard bytes" : ""));
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
$("pick-tensor").addEventListener("change", (e) => main.send({ type: "select", name: e.target.value }));

main.on((m) => {
  if (m.type === "select") $("pick-tensor").value = m.tensor ? m.tensor.tensor.name : "";
});

main.on((m) => {
  const l = state.lessons[state.at];
  if (!l) return;
  if (m.type === "summary" && m.file === fileName(l)) {
    state.armed = true;
    $("viewer").classList.remove("loading");
    tensorPicker(JSON.parse(new TextDecoder().decode(m.tensors_json)));
    state.shown[0] = m.summary;
    $("readout").textContent = readout(m.summary);
    shareWorld();
  }
  if (m.type === "error") {
    $("viewer").classList.remove("loading");
    $("readout").textContent = m.message;
  }
  if (state.armed && holds(l.task, m)) complete();
});

beside.on((m) => {
  const l = state.lessons[state.at];
  if (!l || !l.beside || m.type !== "summary" || m.file !== fileName(l)) return;
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
