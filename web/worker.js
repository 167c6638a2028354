// A planner worker: memplan's planner-only wasm, off the page's main
// thread. The page's runtime (runtime.js) compiles planner.wasm once and
// posts the module ({type: "module", module}); then it posts the
// messages of wasm/protocol (protocol.WorkerRequest: plan, with the file's
// bytes or a Blob as data, explain, export, …) and gets back its events
// (ready, progress, planned, tensors, error, route, outcome, …). Requests
// that arrive while the module starts wait in a queue.
"use strict";
// The single-file build runs this script from a blob with wasm_exec.js
// already in front of it.
if (typeof Go === "undefined") importScripts("wasm_exec.js");

const waiting = [];
// A file may come as a Blob (viewer.js's blobOf): its bytes are read
// here, off the page's thread. Messages keep their order meanwhile, so a
// cancel never overtakes the request it cancels.
let inOrder = Promise.resolve();
self.onmessage = (e) => {
  const m = e.data;
  if (m && m.type === "module") { start(m.module); return; }
  inOrder = inOrder.then(async () => {
    if (m && m.data instanceof Blob) m.data = new Uint8Array(await m.data.arrayBuffer());
    if (self.memplanWorker) self.memplanWorker.handle(m);
    else waiting.push(m);
  }).catch((err) => stopped("reading a file: " + String(err && err.message ? err.message : err)));
};
// Go calls this once memplanWorker exists.
self.memplanWorkerReady = () => {
  for (const m of waiting.splice(0)) self.memplanWorker.handle(m);
};

function stopped(why) {
  self.postMessage({ type: "error", error: { kind: "stopped", message: "the planner stopped: " + why } });
}

async function start(module) {
  const go = new Go();
  let instance;
  try {
    instance = await WebAssembly.instantiate(module, go.importObject);
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
}
