// The Node half of tools/npm's tests: node driver.mjs PACKAGE JOBS runs
// each job of the JSON file JOBS with the package in folder PACKAGE, as
// a user's script would, and writes one JSON array of results; the Go
// test judges them. A job is {op, file, name, options, ...}; a result is
// {value} or {error: the MemplanError's fields, with name and message}.
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";

const [pkg, jobsFile] = process.argv.slice(2);
const memplan = await import(pathToFileURL(pkg + "/index.mjs").href);
const jobs = JSON.parse(await readFile(jobsFile, "utf8"));

const fields = (e) => Object.assign({ name: e && e.name, message: e && e.message, isError: e instanceof Error }, e);
const read = (file) => readFile(file);

// withForward sets options' forward graph from a job's file: its bytes,
// or its text when asText (either is an Input).
async function withForward(o, file, asText) {
  if (file) o.forward = asText ? await readFile(file, "utf8") : await read(file);
  return o;
}

async function run(job) {
  const o = await withForward(Object.assign({ name: job.name }, job.options || {}), job.forward, job.forwardText);
  switch (job.op) {
    case "plan":
      return memplan.plan(await read(job.file), o);
    case "plan-url": // refused by its size before it is read
      return memplan.plan(pathToFileURL(job.file), o);
    case "verify":
      {
        const v = await memplan.verify(JSON.parse(await readFile(job.record, "utf8")), await read(job.file), o);
        return { ok: v.ok, errors: v.errors.map(fields) };
      }
    case "fit":
      return memplan.fit(await read(job.file), o);
    case "explain":
      return memplan.explain(await read(job.file), job.tensor, o);
    case "diff":
      return memplan.diff(await read(job.file), await read(job.fileB), o, job.optionsB && await withForward(Object.assign({}, job.optionsB), job.forwardB));
    case "svg":
      return memplan.svg(JSON.parse(await readFile(job.record, "utf8")), o);
    case "abort": {
      // Aborted at its first progress message, while it plans: the call
      // rejects with the signal's reason, and the next call plans.
      const c = new AbortController();
      let heard = 0;
      o.signal = c.signal;
      o.onProgress = () => { if (heard++ === 0) c.abort(); };
      let aborted = null;
      try { await memplan.plan(await read(job.file), o); } catch (e) { aborted = fields(e); }
      const next = await memplan.plan(await read(job.file), { name: job.name });
      return { progress: heard, aborted, next: next.arena_size };
    }
    case "abort-before": {
      // Aborted before it starts: rejected at once, no plan.
      const c = new AbortController();
      c.abort();
      try { await memplan.plan(await read(job.file), Object.assign(o, { signal: c.signal })); return { aborted: null }; } catch (e) { return { aborted: fields(e) }; }
    }
    case "limit":
      return memplan.maxInputBytes();
  }
  throw new Error("unknown job " + job.op);
}

const results = [];
for (const job of jobs) {
  try {
    results.push({ value: await run(job) });
  } catch (e) {
    results.push({ error: fields(e) });
  }
}
process.stdout.write(JSON.stringify(results));
memplan.close();
