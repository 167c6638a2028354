// memplan's web app: file drop and picker, examples, options, summary,
// tooltip, details, search and the tensor table around the viewer iframe.
// Planning and drawing happen in the viewer (docs/embedding.md); this file
// only sends it files and options and shows what it posts back. Names from
// files are always set as text, never as HTML.
"use strict";
(function () {
  if (window.memplanFramed) return; // guard.js: framed by another site
  const $ = (id) => document.getElementById(id);
  const viewer = $("viewer");
  // Kind colours and the viewer's keys are Go's, from the ready event.
  let kindColors = {}, viewerKeys = new Set(), placeKeys = new Set(), placing = false;

  const state = {
    ready: false,
    stopped: false,     // the viewer's Go program ended; only a reload helps
    queue: [],          // messages waiting for the viewer to start
    tensors: [],        // the current plan's tensors
    tensorsOf: "",      // the file they are of; "" while the plan's are on their way
    tensorsRev: -1,     // their table's rev: a placement by hand's replaces it with a higher one
    summary: null,
    // What "largest that fits" offers (Go's protocol.FitChoices): the
    // plan on screen's symbols, or while a file that did not plan is the
    // one options re-plan, the symbols it lacks values for.
    fitChoices: null,
    file: "",
    selected: null,     // selected tensor name
    sort: { key: "offset", dir: 1 },
    matches: [], matchAt: -1, query: "",
  };
  window.memplanApp = state; // for tests and the curious

  // ---- talking to the viewer ----

  // The viewer is this page's own (viewer.html beside it): messages go to
  // this origin only, so a page that navigated the viewer's frame away
  // gets none of them, and only this origin's messages are heard.
  function send(msg, transfer) {
    if (state.stopped) return;
    if (!state.ready) { state.queue.push([msg, transfer]); return; }
    viewer.contentWindow.postMessage(msg, location.origin, transfer || []);
  }

  // The plot follows the page's colour scheme (app.css); its colours are
  // Go's, in the theme named here.
  const lightScheme = matchMedia("(prefers-color-scheme: light)");
  let allKindColors = {};
  const sendTheme = () => {
    const name = lightScheme.matches ? "light" : "dark";
    send({ type: "theme", name });
    kindColors = allKindColors[name] || {};
    for (const sw of document.querySelectorAll("#table .swatch")) sw.style.background = kindColors[sw.dataset.kind] || "";
  };
  sendTheme();
  lightScheme.addEventListener("change", sendTheme);

  window.addEventListener("message", (e) => {
    if (e.source !== viewer.contentWindow || e.origin !== location.origin) return;
    const m = e.data;
    if (!m || m.source !== "memplan") return;
    switch (m.type) {
      case "ready": onReady(m); break;
      case "busy": setStatus((m.message || "planning " + m.file) + "…"); break;
      case "progress": setStatus("planning " + m.file + ": " + m.message); break;
      case "summary": onPlan(m); break;
      case "tensors": onTensors(m); break;
      case "error": onError(m); break;
      case "stopped": onStopped(m); break;
      case "hover": onHover(m); break;
      case "select": onSelect(m); break;
      case "state": onState(m); break;
      case "export": onExport(m); break;
      case "cursor": onCursor(m); break;
      case "explain": onExplain(m); break;
      case "dragenter": showDrop(true); break;
      case "open": $("file").click(); break;
      case "help": toggleKeys(m.open); break; // ? or Esc with the canvas focused
      case "record": onRecord(m); break;
      case "profile": onProfile(m); break;
      case "largest": onLargest(m); break;
      case "placed": onPlaced(m); break;
    }
  });

  function onReady(m) {
    state.ready = true;
    allKindColors = m.kinds || {};
    kindColors = allKindColors[lightScheme.matches ? "light" : "dark"] || {};
    // The keys of every mode go to the viewer; those of placing by hand
    // only while placing, and never Tab, which moves this page's focus.
    viewerKeys = new Set((m.keys || []).filter((b) => !b.mode).flatMap((b) => b.keys));
    placeKeys = new Set((m.keys || []).filter((b) => b.mode === "place").flatMap((b) => b.keys).filter((k) => k !== "Tab"));
    $("viewer-keys").replaceChildren(...(m.keys || []).flatMap((b) => {
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = b.label;
      dd.textContent = b.help;
      return [dt, dd];
    }));
    const strat = document.querySelector("select[name=strategy]");
    strat.replaceChildren(...m.strategies.map((s) => option(s, s)));
    strat.value = m.defaults.strategy;
    // Which alignment each format gets when none is typed: Go's choice.
    const align = form.elements.alignment;
    align.placeholder = "default: " + m.alignments.map((a) => a.alignment + " " + a.name).join(", ");
    align.title = align.placeholder;
    $("f32-budget").textContent = m.f32_uniform_budget_text;
    // WebGPU profiles and binding models are Go's table, with its words.
    const gpu = form.elements.webgpu;
    gpu.replaceChildren(option("", "none"), ...(m.profiles || []).map((p) => {
      const o = option(p.profile, p.profile + " — " + p.doc);
      o.title = p.text;
      return o;
    }));
    form.elements.binding.replaceChildren(...(m.bindings || []).map((b) => option(b, b)));
    $("file").accept = (m.file_types || []).join(",");
    const ex = $("examples");
    ex.replaceChildren(option("", "—"), ...m.examples.map((n) => option(n, n.replace(/\.json$/, ""))));
    defaultStrategy = m.defaults.strategy;
    for (const [msg, tr] of state.queue.splice(0)) send(msg, tr);
    // The address's state (?url=, #…) is Go's to read.
    sendLocation();
  }

  function option(value, text) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = text;
    return o;
  }

  // ---- files ----

  // The file goes to the viewer as it is, a Blob, unread: Go refuses one
  // over the page's limit by its size, and a planner worker reads it.
  function loadFile(file) {
    hideError();
    const opts = readOptions();
    if (!opts) return;
    state.pendingFile = file.name;
    send({ type: "load", name: file.name, data: file, options: opts });
  }

  $("open").addEventListener("click", () => $("file").click());
  $("file").addEventListener("change", (e) => {
    if (e.target.files[0]) loadFile(e.target.files[0]);
    e.target.value = "";
  });
  $("examples").addEventListener("change", (e) => {
    if (!e.target.value) return;
    const opts = readOptions();
    if (!opts) return;
    hideError();
    send({ type: "example", name: e.target.value, options: opts });
  });

  // Drop anywhere. Drags over the viewer iframe happen in its document,
  // so the viewer posts "dragenter" and this page raises a cover that
  // takes the drop.
  let dragDepth = 0;
  function showDrop(on) { $("drop").hidden = !on; if (!on) dragDepth = 0; }
  function hasFiles(e) { return e.dataTransfer && Array.from(e.dataTransfer.types || []).includes("Files"); }
  window.addEventListener("dragenter", (e) => { if (hasFiles(e)) { dragDepth++; showDrop(true); e.preventDefault(); } });
  window.addEventListener("dragover", (e) => { if (hasFiles(e)) { e.preventDefault(); e.dataTransfer.dropEffect = "copy"; } });
  window.addEventListener("dragleave", () => { if (--dragDepth <= 0) showDrop(false); });
  window.addEventListener("drop", (e) => {
    e.preventDefault();
    showDrop(false);
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f) loadFile(f);
  });

  // ---- options ----

  const form = $("options");
  // readOptions returns the form as viewer options, or null (and shows
  // why) when a field does not parse. Whether a value is allowed is Go's
  // to say: it answers with an error event.
  function readOptions() {
    const f = form.elements;
    const err = $("options-error");
    const opts = {
      strategy: f.strategy.value || undefined,
      // 0: none chosen, so the file's format picks (Go's default).
      alignment: f.alignment.value === "" ? 0 : Number(f.alignment.value),
      f32_uniform: f.f32_uniform.checked,
      no_reuse: f.no_reuse.checked,
      skip_params: f.skip_params.checked,
      skip_inputs: f.skip_inputs.checked,
      skip_constants: f.skip_constants.checked,
      guard: f.guard.value === "" ? -1 : Number(f.guard.value),
      webgpu: f.webgpu.value || undefined,
      binding: f.binding.value || undefined,
      // Go reads the limits, with the command line's --limits grammar.
      limits: f.limits.value.trim() || undefined,
    };
    let problem = "";
    if (!Number.isInteger(opts.alignment)) problem = "alignment must be a whole number of bytes";
    if (!(opts.guard >= -1)) problem = "guard must be a number of bytes";
    // Go reads the symbols, exactly and with the command line's grammar.
    if (f.symbols.value.trim()) opts.symbols_text = f.symbols.value;
    err.hidden = !problem;
    err.textContent = problem;
    return problem ? null : opts;
  }

  let replanTimer = 0;
  form.addEventListener("input", () => {
    clearTimeout(replanTimer);
    // Typing a number re-plans once it settles, not on every keystroke.
    replanTimer = setTimeout(() => {
      const opts = readOptions();
      if (opts) send({ type: "options", options: opts });
    }, 150);
    updateLargest();
  });
  form.addEventListener("submit", (e) => e.preventDefault());

  // ---- plan, summary, table ----

  function onPlan(m) {
    setStatus("");
    // The plan's tensors follow in a "tensors" event: until then the
    // table shows the last plan's, marked busy.
    state.tensorsOf = "";
    state.tensorsRev = -1;
    $("table").setAttribute("aria-busy", "true");
    state.summary = m.summary;
    state.fitChoices = m.summary.fit_choices;
    state.file = m.file;
    state.embed = m.summary.embed; // Go's snippet for this file and these options
    $("embed").disabled = !state.embed;
    $("filename").textContent = m.file;
    if ($("examples").value !== m.file) $("examples").value = Array.from($("examples").options).some((o) => o.value === m.file) ? m.file : "";
    hideError();
    renderSummary(m.summary);
    if (!gpuRunning) $("gpu-result").hidden = true; // it was about another plan
    if (!largestBusy) $("largest-text").hidden = $("largest-details").hidden = true; // likewise
    resetReplay(m.summary.placement_order || []);
    $("time").hidden = false;
    timeStep.max = String(m.summary.steps);
  }

  // onTensors fills the table with the tensors of the plan just shown,
  // and again, rev higher, as the viewer places them by hand (Go's
  // offsets and reuses of what the canvas shows) or stops placing.
  function onTensors(m) {
    const rev = m.rev || 0;
    if (m.file !== state.file || rev <= state.tensorsRev) return; // not the plan on screen, or an older table of it
    const again = !!state.tensorsOf; // the same plan's tensors, placed anew
    // UTF-8 JSON text in bytes: it crosses from the viewer far faster
    // than thousands of objects or one string.
    state.tensors = m.tensors_json ? JSON.parse(new TextDecoder().decode(m.tensors_json)) : [];
    state.tensorsOf = m.file;
    state.tensorsRev = rev;
    replay.byName = null; // of the last plan's tensors, if the replay built it meanwhile
    if (!again) { // the same tensors placed anew keep their matches
      state.query = null; // recompute matches on the next search
      $("matches").textContent = "";
    }
    renderTable(again);
    $("table").removeAttribute("aria-busy");
  }

  // Counts, not bytes: sizes and offsets come from Go in words.
  const grouped = new Intl.NumberFormat("en-US");

  function renderSummary(s) {
    const rows = s.rows; // Go's words
    fillDl($("summary-list"), rows);
    if (s.default_alignment) form.elements.alignment.placeholder = "default: " + s.default_alignment;
    // The verdict is Go's, words included; no budget, no verdict.
    const fit = $("fit");
    fit.hidden = !s.fit;
    fit.textContent = s.fit ? s.fit.text : "";
    fit.className = s.fit && s.fit.fits ? "ok" : "bad";
    // A WebGPU report's lines: violations, requiredLimits, where it runs.
    $("fit-lines").replaceChildren(...((s.fit && s.fit.lines) || []).map((t) => { const li = document.createElement("li"); li.textContent = t; return li; }));
    updateLargest();
    $("notes").replaceChildren(...(s.notes || []).map((n) => { const li = document.createElement("li"); li.textContent = n; return li; }));
  }

  // ---- the largest size that fits: the planner worker searches the
  // symbol's values for the plan on screen (planner.LargestFit) and says,
  // in Go's words, the answer and what stops the next value ----

  let largestBusy = false;
  function updateLargest() {
    const c = state.fitChoices, sel = $("largest-symbol");
    const choices = (c && c.symbols) || [];
    // Go's menu as it is: rebuilt when a name or its words change.
    if (sel.options.length !== choices.length || choices.some((x, i) => sel.options[i].value !== x.name || sel.options[i].textContent !== x.label)) {
      const keep = sel.value;
      sel.replaceChildren(...choices.map((x) => option(x.name, x.label)));
      if (choices.some((x) => x.name === keep)) sel.value = keep;
    }
    const why = !c ? "" : !choices.length ? c.note :
      !form.elements.webgpu.value ? "Choose a WebGPU device under Options to search for the largest size that fits it." : "";
    $("largest-note").textContent = largestBusy ? "searching…" : why;
    $("largest-run").disabled = !!why || largestBusy || !c;
    // No symbols, nothing to choose: the note says why, without an empty
    // select and a button that cannot run.
    $("largest-controls").hidden = !choices.length;
  }
  $("largest-run").addEventListener("click", () => {
    const symbol = $("largest-symbol").value;
    if (!symbol) return;
    largestBusy = true;
    $("largest-text").hidden = true;
    $("largest-details").hidden = true;
    send({ type: "largest", symbol });
    updateLargest();
  });
  function onLargest(m) {
    largestBusy = false;
    const out = $("largest-text"), r = m.largest;
    out.textContent = r ? r.text : "Could not search " + m.symbol + ": " + (m.error ? m.error.message : "no answer");
    out.className = r && r.value > 0 ? "ok" : "bad";
    out.hidden = false;
    $("largest-lines").replaceChildren(...((r && r.lines) || []).map((t) => { const li = document.createElement("li"); li.textContent = t; return li; }));
    $("largest-details").hidden = !r;
    updateLargest();
  }

  // ---- the GPU check: gpurun.js runs the plan on screen in this GPU's
  // memory (docs/gpurun.md) ----

  let gpuRunning = false, recordWaiter = null;
  function onRecord(m) { if (recordWaiter) { recordWaiter(m); recordWaiter = null; } }
  const planRecord = () => new Promise((resolve) => { recordWaiter = resolve; send({ type: "record" }); });

  function showAdapter(adapter) {
    const info = adapter.info || {};
    const name = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(" ") || "unnamed";
    const l = adapter.limits;
    fillDl($("gpu-adapter"), [
      ["adapter", name + (info.isFallbackAdapter || adapter.isFallbackAdapter ? " (software fallback)" : "")],
      ["WebGPU profile", "…"],
    ]);
    $("gpu-adapter").hidden = false;
    // Which named profile these limits provide is Go's rule (ProfileOf).
    send({ type: "profile", limits: { maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
      maxBufferSize: l.maxBufferSize, minStorageBufferOffsetAlignment: l.minStorageBufferOffsetAlignment } });
  }
  function onProfile(m) {
    // The limits in Go's words, then the profile they provide.
    const rows = $("gpu-adapter").querySelectorAll("dt");
    fillDl($("gpu-adapter"), [[rows[0].textContent, rows[0].nextElementSibling.textContent], ...(m.rows || []),
      ["WebGPU profile", m.profile ? m.profile + (m.doc ? " (" + m.doc + ")" : "") : "below every named profile"]]);
  }

  function showResult(file, r) {
    const out = $("gpu-result");
    const c = r.clobbered;
    out.textContent = r.ok
      ? "The plan of " + file + " ran clean on this GPU: " + r.steps + " steps, " + grouped.format(r.tensors_written) +
        " tensors written, " + grouped.format(r.words_checked) + " words checked in " + (r.ms / 1000).toFixed(2) + " s."
      : "Clobbered: at step " + c.step + ", " + c.tensor + " no longer holds its word " + grouped.format(c.word) +
        (c.by ? " (" + c.by + " wrote over it)" : "") + ". The plan of " + file + " is not safe to run.";
    out.className = r.ok ? "ok" : "bad";
    out.hidden = false;
  }

  async function runOnGPU() {
    if (gpuRunning) return;
    gpuRunning = true;
    const say = (text) => { $("gpu-status").textContent = text; };
    const out = $("gpu-result");
    out.hidden = true;
    state.gpu = null;
    try {
      if (!navigator.gpu) {
        say("This browser has no WebGPU (navigator.gpu is missing), so there is no GPU to run the plan on.");
        return;
      }
      say("Asking for a GPU adapter…");
      const adapter = await navigator.gpu.requestAdapter();
      if (!adapter) {
        say("This browser has WebGPU but offers no adapter: no GPU it may use (it may be blocked, or switched off).");
        return;
      }
      showAdapter(adapter);
      if (state.stopped) { say("The viewer stopped, so there is no plan to run: reload the page."); return; }
      say("Getting the plan…");
      const { file, record } = await planRecord();
      if (!record) { say("There is no plan on screen to run."); return; }
      const gpurun = await import("./gpurun.js");
      // The limits the plan needs, as far as the adapter goes; the run
      // binds in pieces when the device allows less.
      const need = gpurun.neededLimits(record), requiredLimits = {};
      for (const k in need) requiredLimits[k] = Math.min(need[k], adapter.limits[k]);
      const device = await adapter.requestDevice({ requiredLimits });
      try {
        say("Running " + file + "…");
        const r = await gpurun.runPlan(record, device, { onProgress: (p) => say("Running " + file + ": step " + p.step + " of " + p.steps + "…") });
        state.gpu = Object.assign({ file }, r);
        showResult(file, r);
      } finally {
        device.destroy();
      }
      say("");
    } catch (err) {
      const msg = String(err && err.message ? err.message : err);
      state.gpu = { error: msg };
      say("");
      out.textContent = "The GPU check could not run: " + msg;
      out.className = "bad";
      out.hidden = false;
    } finally {
      gpuRunning = false;
    }
  }
  $("gpu-run").addEventListener("click", runOnGPU);

  // ---- replay of the placement order ----

  const replay = { order: [], byName: null, timer: 0 };
  state.replay = replay;
  const replayStep = $("replay-step");

  function resetReplay(order) {
    stopReplay();
    replay.order = order;
    replay.byName = null; // built when the replay first names a buffer: 62,000 entries cost 50 ms
    $("replay").hidden = order.length === 0;
    replayStep.max = String(order.length);
    replayStep.value = String(order.length);
    noteReplay(order.length);
  }

  function noteReplay(k) {
    const n = replay.order.length;
    let text;
    if (k >= n) text = "All " + n + " buffers placed, in the order the strategy chose: drag or play to watch it.";
    else if (k === 0) text = "Nothing placed yet.";
    else {
      if (!replay.byName) replay.byName = new Map(state.tensors.map((t) => [t.name, t]));
      const t = replay.byName.get(replay.order[k - 1]);
      text = k + " of " + n + ": " + replay.order[k - 1] + (t ? ", " + t.size_text + (t.offset_text ? " at offset " + t.offset_text : "") : "") +
        ". Bright: the buffers placed before it that live at the same time, which it had to avoid.";
    }
    $("replay-note").textContent = text;
  }

  function showReplay(k) {
    replayStep.value = String(k);
    noteReplay(k);
    send({ type: "reveal", count: k >= replay.order.length ? -1 : k });
    // Why the buffer just placed sits where it does: the viewer outlines
    // the buffers it had to avoid.
    if (k > 0 && k < replay.order.length) showWhy(replay.order[k - 1]);
  }

  function stopReplay() {
    clearInterval(replay.timer);
    replay.timer = 0;
    $("replay-play").textContent = "Play";
  }

  replayStep.addEventListener("input", () => { stopReplay(); showReplay(Number(replayStep.value)); });
  $("replay-play").addEventListener("click", () => {
    if (replay.timer) { stopReplay(); return; }
    const n = replay.order.length;
    // About eight seconds whatever the size: a few buffers a tick for big plans.
    const tick = Math.max(30, Math.min(400, 8000 / n));
    const stride = Math.max(1, Math.ceil(n * tick / 8000));
    let k = Number(replayStep.value) >= n ? 0 : Number(replayStep.value);
    showReplay(k);
    $("replay-play").textContent = "Pause";
    replay.timer = setInterval(() => {
      k = Math.min(n, k + stride);
      showReplay(k);
      if (k >= n) stopReplay();
    }, tick);
  });

  function fillDl(dl, rows) {
    dl.replaceChildren();
    for (const [k, v] of rows) {
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.textContent = v;
      dl.append(dt, dd);
    }
  }

  // The table lists every tensor but builds rows only for what its
  // scroll box shows: a thousand real rows took a third of a second to lay
  // out, every time one changed, and froze the canvas meanwhile.
  const OVERSCAN = 8; // rows built beyond each edge, so a scroll shows no gap
  state.order = []; // tensor indices in table order
  state.tabPos = 0; // the row in the Tab order, by position in state.order
  let rowH = 0; // a row's height in CSS pixels, measured once
  let drawn = null; // what drawRows last built
  const tbody = document.querySelector("#table tbody"), tableWrap = $("table-wrap");
  const sortValue = {
    name: (t) => t.name, op: (t) => t.op, kind: (t) => t.kind, dtype: (t) => t.dtype,
    shape: (t) => t.shape.reduce((a, b) => a * b, 1), size: (t) => t.size, offset: (t) => t.offset,
    birth: (t) => t.birth, reuses: (t) => t.reuses || "",
  };

  function sortedTensors() {
    const { key, dir } = state.sort;
    const f = sortValue[key];
    const keys = state.tensors.map(f); // once per tensor, not once per comparison
    const idx = state.tensors.map((_, i) => i);
    idx.sort((a, b) => {
      const x = keys[a], y = keys[b];
      return (x < y ? -1 : x > y ? 1 : a - b) * dir;
    });
    return idx;
  }

  // renderTable shows state.tensors in the sort order. With again (the
  // same tensors placed anew) the reader keeps their place: the scroll,
  // and the focus on the row they were on, wherever it sorts now.
  function renderTable(again) {
    const had = selectedPos() >= 0; // in the old order
    const focused = again && tbody.contains(document.activeElement) ? document.activeElement.dataset.name : null;
    state.order = sortedTensors();
    state.tabPos = 0; // markSelectedRow moves it to the selected row
    if (!had && !again) tableWrap.scrollTop = 0; // a new table starts at its top
    $("table").setAttribute("aria-rowcount", String(state.order.length + 1)); // with the header's
    for (const th of document.querySelectorAll("#table th")) {
      th.setAttribute("aria-sort", th.dataset.key === state.sort.key ? (state.sort.dir > 0 ? "ascending" : "descending") : "none");
    }
    drawn = null;
    markSelectedRow(had);
    if (focused) {
      const pos = state.order.findIndex((i) => state.tensors[i].name === focused);
      if (pos >= 0) focusRow(pos);
    }
  }

  // selectedPos is the selected tensor's row, or -1.
  function selectedPos() {
    if (!state.selected) return -1;
    const i = state.tensors.findIndex((t) => t.name === state.selected);
    return i < 0 ? -1 : state.order.indexOf(i);
  }

  // drawRows builds the rows the scroll box shows, between two spacer rows
  // that keep the scroll height of the whole table.
  function drawRows() {
    const n = state.order.length;
    if (!rowH && n) {
      tbody.replaceChildren(row(state.tensors[state.order[0]], 0));
      rowH = tbody.firstElementChild.getBoundingClientRect().height || 20;
    }
    const head = document.querySelector("#table thead").offsetHeight;
    const from = Math.max(0, Math.min(n, Math.floor((tableWrap.scrollTop - head) / rowH) - OVERSCAN));
    const to = Math.min(n, from + Math.ceil(tableWrap.clientHeight / rowH) + 2 * OVERSCAN);
    if (drawn && drawn.from === from && drawn.to === to && drawn.order === state.order) return markRows();
    const frag = document.createDocumentFragment();
    if (from > 0) frag.append(spacer(from * rowH));
    for (let p = from; p < to; p++) frag.append(row(state.tensors[state.order[p]], p));
    if (to < n) frag.append(spacer((n - to) * rowH));
    tbody.replaceChildren(frag);
    drawn = { from, to, order: state.order };
    // A row measured while the table was hidden (a narrow layout) had no
    // height: measure again once one shows.
    const h = tbody.querySelector("tr[data-pos]")?.getBoundingClientRect().height;
    if (h && Math.abs(h - rowH) > 0.5) { rowH = h; drawn = null; return drawRows(); }
    markRows();
  }

  function spacer(height) {
    const tr = document.createElement("tr");
    tr.className = "spacer";
    tr.setAttribute("aria-hidden", "true");
    tr.style.height = height + "px";
    const td = document.createElement("td");
    td.colSpan = 9;
    tr.append(td);
    return tr;
  }

  // markRows marks the selected row and puts one row in the Tab order: the
  // one at tabPos, or the first built when that one is scrolled away.
  function markRows() {
    const rows = tbody.querySelectorAll("tr[data-pos]");
    const tab = Array.from(rows).find((r) => +r.dataset.pos === state.tabPos) || rows[0];
    for (const r of rows) {
      r.classList.toggle("selected", r.dataset.name === state.selected);
      r.tabIndex = r === tab ? 0 : -1;
    }
  }

  let scrollQueued = false;
  tableWrap.addEventListener("scroll", () => {
    if (scrollQueued) return;
    scrollQueued = true;
    requestAnimationFrame(() => { scrollQueued = false; drawRows(); });
  });
  new ResizeObserver(() => drawRows()).observe(tableWrap);

  function row(t, pos) {
    const tr = document.createElement("tr");
    tr.dataset.name = t.name;
    tr.dataset.pos = String(pos);
    tr.setAttribute("aria-rowindex", String(pos + 2)); // the header is row 1
    tr.tabIndex = -1; // markRows puts one row in the Tab order
    const cells = [
      t.name, t.op, t.kind, "[" + t.shape.join(", ") + "]", t.dtype,
      t.size_text, t.offset < 0 ? (t.skipped ? "skipped" : "—") : t.offset_text,
      t.birth + "–" + t.death, t.root ? "view of " + t.root : (t.reuses || ""),
    ];
    cells.forEach((c, k) => {
      const td = document.createElement("td");
      if (k === 2) {
        const sw = document.createElement("span");
        sw.className = "swatch";
        sw.dataset.kind = t.kind;
        sw.style.background = kindColors[t.kind] || "";
        td.append(sw);
      }
      td.append(document.createTextNode(c));
      if (k === 5 || k === 6 || k === 7) td.className = "num";
      if (k === 0) td.title = t.name;
      tr.append(td);
    });
    return tr;
  }

  document.querySelector("#table thead").addEventListener("click", (e) => {
    const th = e.target.closest("th");
    if (!th) return;
    const key = th.dataset.key;
    state.sort = { key, dir: state.sort.key === key ? -state.sort.dir : 1 };
    renderTable();
  });
  tbody.addEventListener("click", (e) => {
    const tr = e.target.closest("tr[data-pos]");
    if (tr) { state.tabPos = +tr.dataset.pos; markRows(); send({ type: "focus", name: tr.dataset.name }); }
  });
  // The keyboard: one row is in the Tab order (the selected one, else the
  // first); arrows, Page Up/Down, Home and End move between rows, Enter or
  // Space selects.
  tbody.addEventListener("keydown", (e) => {
    const tr = e.target;
    if (!tr.matches("tr[data-pos]") || e.ctrlKey || e.metaKey || e.altKey) return;
    const at = +tr.dataset.pos, n = state.order.length, page = Math.max(1, Math.floor(tableWrap.clientHeight / rowH) - 1);
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, PageDown: at + page, PageUp: at - page, Home: 0, End: n - 1 }[e.key];
    if (e.key === "Enter" || e.key === " ") send({ type: "focus", name: tr.dataset.name });
    else if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation(); // arrows here move in the table, not the plot
    if (to !== undefined) focusRow(Math.max(0, Math.min(n - 1, to)));
  });

  // focusRow scrolls row pos into view, builds it and gives it the focus.
  function focusRow(pos) {
    state.tabPos = pos;
    showRow(pos);
    const tr = tbody.querySelector("tr[data-pos='" + pos + "']");
    if (tr) tr.focus({ preventScroll: true });
  }

  // showRow scrolls the table, never the page (on a phone the table is
  // far below the plot that was tapped), to show row pos below its header,
  // and builds the rows now in view.
  function showRow(pos) {
    const head = document.querySelector("#table thead").offsetHeight;
    const top = head + pos * rowH;
    if (top < tableWrap.scrollTop + head) tableWrap.scrollTop = top - head;
    else if (top + rowH > tableWrap.scrollTop + tableWrap.clientHeight) tableWrap.scrollTop = top + rowH - tableWrap.clientHeight;
    drawRows();
  }

  function markSelectedRow(scroll) {
    const pos = selectedPos();
    if (pos >= 0) state.tabPos = pos;
    if (scroll && pos >= 0) {
      if (!rowH) drawRows(); // measures a row
      showRow(pos);
    } else drawRows();
  }

  // ---- hover and selection ----

  const tooltip = $("tooltip");
  function onHover(m) {
    if (!m.tensor) { tooltip.hidden = true; return; }
    const t = m.tensor.tensor;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = t.name + (m.part === "guard" ? " (guard band)" : "");
    const dl = document.createElement("dl");
    fillDl(dl, m.tensor.rows);
    tooltip.replaceChildren(name, dl);
    tooltip.hidden = false;
    // Keep the tooltip inside the viewer, on the side away from the edge.
    const wrap = $("viewer-wrap").getBoundingClientRect();
    const w = tooltip.offsetWidth, h = tooltip.offsetHeight;
    let x = m.x + 16, y = m.y + 16;
    if (x + w > wrap.width) x = Math.max(0, m.x - w - 12);
    if (y + h > wrap.height) y = Math.max(0, m.y - h - 12);
    tooltip.style.left = x + "px";
    tooltip.style.top = y + "px";
  }
  viewer.addEventListener("mouseleave", () => { tooltip.hidden = true; });

  function onSelect(m) {
    const list = $("partners");
    showWhy(m.tensor ? m.tensor.tensor.name : null);
    if (!m.tensor) {
      state.selected = null;
      $("details-empty").hidden = false;
      $("details-list").replaceChildren();
      $("partners-title").hidden = true;
      list.replaceChildren();
      markSelectedRow(false);
      return;
    }
    const t = m.tensor.tensor;
    const partners = m.partners || [];
    state.selected = t.name;
    $("details-empty").hidden = true;
    fillDl($("details-list"), [["name", t.name], ...m.tensor.rows]);
    $("partners-title").hidden = false;
    $("partners-title").textContent = partners.length
      ? "Shared these bytes (" + partners.length + ")" : "Nothing else used these bytes";
    list.replaceChildren(...partners.map((p) => {
      const u = p.tensor;
      const li = document.createElement("li");
      li.dataset.name = u.name;
      const b = document.createElement("button"); // selects it: reachable by keyboard
      b.type = "button";
      b.textContent = p.line;
      li.append(b);
      return li;
    }));
    markSelectedRow(true);
  }
  // ---- why is this buffer here (Go explains; the worker has the plan) ----

  function showWhy(name) {
    state.why = name;
    $("why-title").hidden = $("why").hidden = !name;
    $("why").textContent = name ? "…" : "";
    if (name) send({ type: "explain", tensor: name });
  }
  function onExplain(m) {
    if (m.tensor !== state.why) return; // an answer for an older selection
    $("why").textContent = m.error ? m.error : m.text;
  }

  // ---- the time cursor ----

  const timeStep = $("time-step");
  function onCursor(m) {
    const on = m.step >= 0;
    state.cursor = m.step;
    if (on) timeStep.value = String(m.step);
    $("time-readout").hidden = $("time-live").hidden = !on;
    $("time-note").hidden = on;
    if (!on) return;
    const op = m.op ? m.op + " reads " + (m.reads.join(", ") || "nothing") + "; writes " + (m.writes.join(", ") || "nothing")
      : "past the last op: only what outlives the run";
    fillDl($("time-readout"), [
      ["step", m.step + (m.step === m.peak ? " (the peak)" : "")],
      ...m.rows,
      ["op", op],
    ]);
    $("time-live").querySelector("caption").textContent = m.live.length + " live at step " + m.step + (m.step === m.peak ? ", the peak" : "") + ", by offset";
    $("time-live").tBodies[0].replaceChildren(...m.live.map((t) => {
      const tr = document.createElement("tr");
      tr.dataset.name = t.name;
      for (const [v, num] of [[t.offset_text, true], [t.size_text, true], [t.name, false]]) {
        const td = document.createElement("td");
        td.textContent = v;
        if (num) td.className = "num";
        tr.append(td);
      }
      return tr;
    }));
  }
  const stepCursor = (d) => send({ type: "cursor", by: d });
  timeStep.addEventListener("input", () => send({ type: "cursor", step: Number(timeStep.value) }));
  $("time-back").addEventListener("click", () => stepCursor(-1));
  $("time-on").addEventListener("click", () => stepCursor(1));
  $("time-peak").addEventListener("click", () => send({ type: "peak" }));

  // ---- placing by hand: every verdict is the planner's (placed) ----
  for (const [id, action] of [["place-empty", "empty"], ["place-reset", "reset"], ["place-undo", "undo"], ["place-redo", "redo"]]) {
    $(id).addEventListener("click", () => send({ type: "placing", action }));
  }
  $("place-start").addEventListener("click", () => {
    send({ type: "placing", action: $("place-start").getAttribute("aria-pressed") === "true" ? "stop" : "start" });
  });
  function onPlaced(m) {
    placing = m.placing;
    $("place-start").setAttribute("aria-pressed", String(m.placing));
    $("place-undo").disabled = !m.placing || m.undo === 0;
    $("place-redo").disabled = !m.placing || m.redo === 0;
    $("place-verdict").textContent = m.placing ? m.text : "";
    $("place-verdict").classList.toggle("bad", m.placing && !m.valid);
    $("place-rows").replaceChildren(...(m.placing ? m.rows : []).flatMap(([k, v]) => {
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = k;
      dd.textContent = v;
      return [dt, dd];
    }));
  }
  $("time-hide").addEventListener("click", () => send({ type: "cursor", step: -1 }));
  $("time-live").addEventListener("click", (e) => {
    const tr = e.target.closest("tr[data-name]");
    if (tr) send({ type: "focus", name: tr.dataset.name });
  });

  $("partners").addEventListener("click", (e) => {
    const li = e.target.closest("li");
    if (li) send({ type: "focus", name: li.dataset.name });
  });

  // ---- search ----

  const search = $("search");
  function findMatches() {
    const q = search.value.trim().toLowerCase();
    if (q === state.query) return;
    state.query = q;
    state.matchAt = -1;
    state.matches = q ? state.tensors.filter((t) => t.offset >= 0 && t.name.toLowerCase().includes(q)).map((t) => t.name) : [];
    $("matches").textContent = q ? state.matches.length + (state.matches.length === 1 ? " match" : " matches") : "";
  }
  search.addEventListener("input", findMatches);
  search.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      findMatches();
      const n = state.matches.length;
      if (!n) return;
      state.matchAt = (state.matchAt + (e.shiftKey ? n - 1 : 1)) % n;
      $("matches").textContent = (state.matchAt + 1) + " of " + n;
      send({ type: "focus", name: state.matches[state.matchAt] });
    } else if (e.key === "Escape") {
      search.blur();
    }
  });

  // ---- the link: state in the address, Share, Export ----

  // Go encodes what is on screen (file, options, camera, selection,
  // replay) as the address's fragment and posts it as a "state" event;
  // this page only writes it into the address, and hands the address back
  // on load and on back/forward. A new file or new options make a history
  // entry (push, Go's call); the view's changes replace the current one.
  let defaultStrategy = "";
  state.hash = "";
  function sendLocation() {
    send({ type: "location", search: location.search, hash: location.hash });
  }
  // Back, Forward and a fragment edited by hand all fire popstate.
  window.addEventListener("popstate", sendLocation);

  function onState(m) {
    state.hash = m.hash;
    // Once Go has read it, ?url= is in the fragment too: drop the query so
    // the address names the file once.
    const url = location.pathname + "#" + m.hash;
    if (m.push) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
    $("share-note").textContent = m.note || "";
    if (!$("share-panel").hidden) showShareLink();
    if (m.restored) restoreForm(m.restored);
  }

  // restoreForm shows a link's options in the form and its replay step on
  // the slider, without re-planning: the viewer already planned with them.
  function restoreForm(r) {
    const f = form.elements, o = r.options || {};
    f.strategy.value = o.strategy || defaultStrategy;
    f.alignment.value = o.alignment > 0 ? String(o.alignment) : "";
    f.guard.value = o.guard >= 0 ? String(o.guard) : "";
    f.symbols.value = o.symbols_text || "";
    f.f32_uniform.checked = !!o.f32_uniform;
    f.no_reuse.checked = !!o.no_reuse;
    f.skip_params.checked = !!o.skip_params;
    f.skip_inputs.checked = !!o.skip_inputs;
    f.skip_constants.checked = !!o.skip_constants;
    f.webgpu.value = o.webgpu || "";
    f.limits.value = o.limits || "";
    if (o.binding) f.binding.value = o.binding;
    else f.binding.selectedIndex = 0; // Go's list starts with its default
    const k = r.step >= 0 ? Math.min(r.step, replay.order.length) : replay.order.length;
    replayStep.value = String(k);
    noteReplay(k);
    // As the replay left it: why its newest buffer sits where it does.
    if (k > 0 && k < replay.order.length) showWhy(replay.order[k - 1]);
  }

  function shareLink() {
    return location.origin + location.pathname + "#" + state.hash;
  }
  function showShareLink() {
    $("share-link").value = shareLink();
  }
  // A popup opens under its button (the header wraps on a phone) and
  // closes on a click anywhere else.
  function openPopup(id, button, on) {
    if (on) $(id).style.top = ($(button).getBoundingClientRect().bottom + window.scrollY + 6) + "px";
    $(id).hidden = !on;
    $(button).setAttribute("aria-expanded", String(on));
  }
  document.addEventListener("pointerdown", (e) => {
    for (const [panel, button] of [["share-panel", "share"], ["export-menu", "export"]]) {
      if (!$(panel).hidden && !$(panel).contains(e.target) && !$(button).contains(e.target)) openPopup(panel, button, false);
    }
  });
  $("share").addEventListener("click", async () => {
    const on = $("share-panel").hidden;
    openPopup("export-menu", "export", false);
    openPopup("share-panel", "share", on);
    if (!on) return;
    showShareLink();
    const input = $("share-link");
    input.focus();
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      $("share-status").textContent = "Copied to the clipboard.";
    } catch (err) {
      $("share-status").textContent = "Press Ctrl/⌘+C to copy it.";
    }
  });
  $("export").addEventListener("click", () => {
    const on = $("export-menu").hidden;
    openPopup("share-panel", "share", false);
    openPopup("export-menu", "export", on);
    if (on) $("export-menu").querySelector("button").focus();
  });
  $("export-menu").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-what]");
    if (!b) return;
    openPopup("export-menu", "export", false);
    $("export").focus();
    setStatus("exporting…");
    send({ type: "export", what: b.dataset.what });
  });
  // Arrows move in the menu; Escape closes a popup and goes back to its button.
  $("export-menu").addEventListener("keydown", (e) => {
    const items = Array.from($("export-menu").querySelectorAll("button"));
    const i = items.indexOf(document.activeElement);
    const to = { ArrowDown: items[(i + 1) % items.length], ArrowUp: items[(i + items.length - 1) % items.length],
      Home: items[0], End: items[items.length - 1] }[e.key];
    if (to) { e.preventDefault(); to.focus(); }
  });
  for (const [panel, button] of [["share-panel", "share"], ["export-menu", "export"]]) {
    $(panel).addEventListener("keydown", (e) => {
      if (e.key !== "Escape") return;
      e.stopPropagation();
      openPopup(panel, button, false);
      $(button).focus();
    });
  }

  // An export arrives as a Blob; the page saves it as a download.
  state.exports = []; // for tests: {what, name, mime, size, blob}
  function onExport(m) {
    setStatus("");
    state.exports.push({ what: m.what, name: m.name, mime: m.mime, size: m.blob.size, width: m.width, height: m.height, blob: m.blob });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(m.blob);
    a.download = m.name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 0);
  }

  // ---- errors and status ----

  // The message is Go's, whole: it names the file, the place and what is
  // wrong. What to do about it (Go's hint) comes first, and when the
  // file needs symbol values the focus goes where they are typed.
  function onError(m) {
    setStatus("");
    const title = m.kind === "link" ? "Could not open the link" : m.file ? "Could not plan " + m.file : "Error";
    showError(title, m.message,
      m.showing ? "The plan of " + m.showing + " stays on screen." : "", m.hint);
    if (m.need === "symbols") {
      const f = $("options").elements.symbols;
      if (!f.value.trim() && m.symbols) f.placeholder = m.symbols.map((n) => n + "=").join(", ");
      f.focus();
    }
    // A file that did not plan is the one options re-plan, and the one
    // the search looks at: Go says what it offers there.
    if (m.fit_choices) {
      state.fitChoices = m.fit_choices;
      if (!largestBusy) $("largest-text").hidden = $("largest-details").hidden = true; // about another file
      updateLargest();
    }
  }

  // The viewer's Go program ended (it exited or crashed): nothing will
  // answer any more, so say so instead of waiting.
  function onStopped(m) {
    state.stopped = true;
    setStatus("");
    showError("The planner stopped", m.message, "Reload the page to start it again.");
    $("error-reload").hidden = false;
    $("error-close").hidden = true;
  }

  function showError(title, msg, note, hint) {
    $("error-title").textContent = title;
    $("error-hint").textContent = hint || "";
    $("error-hint").hidden = !hint;
    $("error-msg").textContent = msg;
    $("error-note").textContent = note;
    $("error").hidden = false;
  }
  function hideError() { $("error").hidden = true; }
  $("error-close").addEventListener("click", () => {
    hideError();
    send({ type: "dismiss" }); // options apply to the plan on screen again
    state.fitChoices = state.summary && state.summary.fit_choices; // and the search to it
    if (!largestBusy) $("largest-text").hidden = $("largest-details").hidden = true; // an answer about the closed file
    updateLargest();
  });
  $("error-reload").addEventListener("click", () => location.reload());

  function setStatus(s) {
    if (s) $("filename").textContent = s;
    else $("filename").textContent = state.file;
  }

  // ---- keys ----

  function toggleKeys(on) {
    const k = $("keys");
    k.hidden = on === undefined ? !k.hidden : !on;
  }
  $("help").addEventListener("click", () => toggleKeys());
  $("embed").addEventListener("click", async () => {
    const b = $("embed");
    try {
      await navigator.clipboard.writeText(state.embed);
      b.textContent = "Copied";
    } catch (err) {
      b.textContent = "Copy failed";
      setStatus("copy: " + err.message);
    }
    setTimeout(() => { b.textContent = "Copy embed code"; }, 1500);
  });

  window.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "o") {
      e.preventDefault();
      $("file").click();
      return;
    }
    const t = e.target;
    if (t.closest && t.closest("input, select, textarea, .popup")) return; // keys of their own
    if (e.ctrlKey || e.metaKey) return;
    if (e.key === "?") { toggleKeys(); return; }
    if (e.key === "/") { e.preventDefault(); search.focus(); search.select(); return; }
    if (e.key === "Escape") toggleKeys(false);
    if (viewerKeys.has(e.key) || (placing && placeKeys.has(e.key))) {
      e.preventDefault();
      send({ type: "key", key: e.key, shift: e.shiftKey });
    }
  });
})();
