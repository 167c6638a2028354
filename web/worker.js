// The planner worker: memplan's planner-only wasm, off the page's main
// thread. The viewer posts {type: "plan", id, name, data, options} and
// gets back the events of wasm/protocol (ready, progress, planned,
// error). Requests that arrive while the wasm loads wait in a queue.
"use strict";
importScripts("wasm_exec.js");

const waiting = [];
self.onmessage = (e) => {
  if (self.memplanWorker) self.memplanWorker.handle(e.data);
  else waiting.push(e.data);
};
// Go calls this once memplanWorker exists.
self.memplanWorkerReady = () => {
  for (const m of waiting.splice(0)) self.memplanWorker.handle(m);
};

function stopped(why) {
  self.postMessage({ type: "error", error: { kind: "stopped", message: "the planner stopped: " + why } });
}

(async () => {
  const go = new Go();
  const url = new URL("planner.wasm", self.location.href);
  let instance;
  try {
    try {
      ({ instance } = await WebAssembly.instantiateStreaming(fetch(url), go.importObject));
    } catch (err) {
      // A host that serves .wasm without Content-Type application/wasm
      // breaks streaming compilation; compiling the bytes still works.
      const resp = await fetch(url);
      if (!resp.ok) throw new Error("fetching " + url + ": HTTP " + resp.status);
      ({ instance } = await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject));
    }
  } catch (err) {
    stopped(String(err && err.message ? err.message : err));
    return;
  }
  try {
    await go.run(instance);
    stopped("the Go program exited");
  } catch (err) {
    stopped(String(err && err.message ? err.message : err));
  }
})();
