// memplan's planner worker for the package: planner.wasm (wasm/worker)
// in a browser's module worker or a Node worker thread. index.mjs
// compiles the wasm once and posts it ({type: "module", module}); then
// it posts wasm/protocol's worker requests and gets back its events.
// Requests that arrive while Go starts wait in a queue, in order.
const node = typeof WorkerGlobalScope === "undefined" && typeof process === "object" && !!process.versions && !!process.versions.node;

const waiting = [];
function heard(m) {
  if (m && m.type === "module") { start(m.module); return; }
  if (globalThis.memplanWorker) globalThis.memplanWorker.handle(m);
  else waiting.push(m);
}
// A browser drops the messages that reach a module worker before it
// listens, and this one awaits its imports: it listens first.
let send = null;
if (!node) {
  self.onmessage = (e) => heard(e.data);
  send = (m, transfer) => self.postMessage(m, transfer);
}
// Go calls this once memplanWorker exists.
globalThis.memplanWorkerReady = () => {
  for (const m of waiting.splice(0)) globalThis.memplanWorker.handle(m);
};
// Go's JavaScript support, which defines Go.
const loaded = import("./wasm_exec.js");

if (node) {
  // A worker thread keeps the messages that come before it listens.
  const { parentPort } = await import("node:worker_threads");
  send = (m, transfer) => parentPort.postMessage(m, transfer);
  // Go posts its events through the global postMessage, as in a browser.
  globalThis.postMessage = send;
  parentPort.on("message", heard);
}

function stopped(why) {
  send({ type: "error", error: { kind: "stopped", message: "the planner stopped: " + why } });
}

async function start(module) {
  try {
    await loaded;
    const go = new globalThis.Go();
    const instance = await WebAssembly.instantiate(module, go.importObject);
    await go.run(instance);
    stopped("the Go program exited");
  } catch (err) {
    stopped(String(err && err.message ? err.message : err));
  }
}
