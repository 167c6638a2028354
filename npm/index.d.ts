// Generated from Go by `go generate ./wasm/protocol/typedefs`; do not edit.
// The types of memplan's JavaScript module (npm/index.mjs): Go's types are the contract.

/** Planning options, named as memplan's option table names them for scripts. */
export interface Options {
  /** placement strategy: auto, best-fit, best-fit-temporal, breadth, exact, first-use, improve, no-reuse, reference (default auto) */
  strategy?: "auto" | "best-fit" | "best-fit-temporal" | "breadth" | "exact" | "first-use" | "improve" | "no-reuse" | "reference";
  /** offset alignment in bytes, a power of two (default 64 for graphs, 1 for buffer CSVs) */
  alignment?: number | string;
  /** tail guard bytes after input, param and constant buffers (default max(align, 128)) */
  guard?: number | string;
  /** fail with exit status 3 if the arena exceeds this size (bytes, 128MiB, 1GiB); exact looks for an arena that fits it first (default none; with --f32-uniform and no --webgpu, WebGPU's 128 MiB binding) */
  budget?: number | string;
  /** store every tensor as f32, 4 bytes an element (WebGPU layout) */
  f32Uniform?: boolean;
  /** give every buffer its own bytes (the baseline) */
  noReuse?: boolean;
  /** leave these kinds out of the arena: a comma list of params, inputs, constants (default none) */
  skip?: string | Array<"params" | "inputs" | "constants">;
  /** leave params out of the arena */
  skipParams?: boolean;
  /** leave inputs out of the arena */
  skipInputs?: boolean;
  /** leave constants out of the arena */
  skipConstants?: boolean;
  /** bind symbolic dimensions, sym=value[,sym=value] (repeatable); a value may be an expression of other symbols with + - * and parentheses (total=past+seq) (default the graph's) */
  symbols?: string | Record<string, number | string>;
  /** ONNX If nodes whose branches disagree on a shape take this branch: then or else (default they must agree) */
  ifBranch?: "then" | "else";
  /** plan for a WebGPU device profile (default, fallback, android, ios, intel, desktop); exit status 3 when the plan does not fit it (default none) */
  webgpu?: "default" | "fallback" | "android" | "ios" | "intel" | "desktop";
  /** with --webgpu, how the runtime binds the arena (its binding model): arena, one binding, or tensor, each tensor bound at its own offset (default arena) */
  binding?: "arena" | "tensor";
  /** with --webgpu, custom limits over the profile's: binding=1GiB,buffer=1GiB,offset-align=256 (default the profile's) */
  limits?: string;
  /** stop exact and improve after this many search nodes, and cap auto's slice and what it adds far above the bound at it: the same input and budget give the same plan on any machine (default none: --time-limit) */
  nodeLimit?: number;
  /** stop exact and improve after this long, a duration as the command line's --time-limit reads it: "10s", "500ms", "1m30s" (default 10s unless nodeLimit is given) */
  timeLimit?: string;
  /** a time cap on auto's improving of its portfolio's answer, a duration as the command line's --auto-slice reads it ("250ms"); "0s" for none (default none: its node budget alone, the same plan on any machine) */
  autoSlice?: string;
  /** refuse files whose reading and planning would need more memory than this (bytes, 512MiB), as the command line's --max-memory; at most 1 GiB, what the planner's worker holds (default 1 GiB) */
  maxMemory?: number | string;
}

export interface PlanRecord {
  format: string;
  name: string;
  arena_size: number;
  lower_bound: number;
  aligned_lower_bound: number;
  total_unshared: number;
  saved: number;
  fragmentation: number;
  alignment: number;
  strategy: string;
  optimal: boolean;
  optimal_by_search?: boolean;
  options: PlannerOptions;
  steps: number;
  schedule: Array<string>;
  phases?: Array<string>;
  reads: Array<Array<number>>;
  tensors: Array<PlanTensor>;
  io: IO;
  symbols: Record<string, number>;
  notes?: Array<string>;
  placement_order?: Array<string>;
  binding?: string;
  limits?: Limits | null;
  buffers?: Array<GPUBuffer>;
  placement_rule?: string;
  fingerprint: string;
}

export interface ErrorFields {
  message: string;
  file?: string;
  line?: number;
  column?: number;
  path?: string;
  node?: string;
  need?: string;
  hint?: string;
  symbols?: Array<string>;
  param?: string;
  kind: string;
}

export interface SymbolFit {
  symbol: string;
  follows?: Array<string>;
  value: number;
  at: Trial | null;
  next: Trial | null;
  ceiling: number;
  trials: Array<Trial>;
  weights?: number;
  weights_over?: boolean;
  changes?: Array<FitChange>;
  text?: string;
  lines?: Array<string>;
}

export interface Explanation {
  tensor: string;
  kind: string;
  birth: number;
  death: number;
  producer?: string;
  producer_op?: string;
  death_reason: string;
  last_reader?: string;
  kept_by?: string;
  root?: string;
  view_offset?: number;
  skipped?: boolean;
  placement?: PlaceReason | null;
  text: string;
}

export interface Diff {
  a: DiffSide;
  b: DiffSide;
  arena_delta: number;
  lower_bound_delta: number;
  fragmentation_delta: number;
  totals: Array<DiffTotal>;
  matched: number;
  changed: Array<TensorChange>;
  only_a: Array<string>;
  only_b: Array<string>;
}

export interface Fit {
  budget: number;
  limit: string;
  fits: boolean;
  over?: number;
  text: string;
  binding?: string;
  limits?: Limits | null;
  violations?: Array<Violation>;
  required_limits?: RequiredLimits | null;
  runs_on?: string;
  lines?: Array<string>;
}

export interface PlannerOptions {
  alignment: number;
  f32_uniform: boolean;
  no_reuse: boolean;
  skip_params: boolean;
  skip_inputs: boolean;
  skip_constants: boolean;
  guard: number;
  symbols?: Record<string, number>;
}

export interface PlanTensor {
  name: string;
  op: string;
  node?: string;
  phase?: string;
  kind: string;
  shape: Array<number>;
  dtype: string;
  size: number;
  offset: number;
  guard: number;
  birth: number;
  death: number;
  reuses?: string;
  root?: string;
  view_offset: number;
  skipped?: boolean;
  alignment?: number;
  BufferSlot: BufferSlot | null;
}

export interface IO {
  inputs: Array<string>;
  params: Array<string>;
  constants: Array<string>;
  outputs: Array<string>;
}

export interface Limits {
  profile: string;
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
  minStorageBufferOffsetAlignment: number;
}

export interface GPUBuffer {
  offset: number;
  size: number;
}

export interface Trial {
  value: number;
  fits: boolean;
  arena: number;
  fit: Fit | null;
  follow?: Record<string, number>;
}

export interface FitChange {
  change: string;
  value: number;
  at_least?: boolean;
  plans: number;
}

export interface PlaceReason {
  buffer: string;
  offset: number;
  span: number;
  birth: number;
  death: number;
  rule: string;
  turn: number;
  of: number;
  conflicts: Array<Neighbour>;
  gaps: Array<Gap>;
  chosen: number;
  holds: boolean;
}

export interface DiffSide {
  name: string;
  strategy: string;
  label: string;
  arena_size: number;
  lower_bound: number;
  fragmentation: number;
  optimal: boolean;
  steps: number;
  tensors: number;
}

export interface DiffTotal {
  what: string;
  a: string;
  b: string;
  delta: string;
}

export interface TensorChange {
  name: string;
  offset_a: number;
  offset_b: number;
  size_a: number;
  size_b: number;
  birth_a: number;
  death_a: number;
  birth_b: number;
  death_b: number;
  what: string;
}

export interface Violation {
  tensor?: string;
  size: number;
  limit: string;
  max: number;
  symbols?: Array<string>;
  text: string;
}

export interface RequiredLimits {
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
  minStorageBufferOffsetAlignment?: number;
}

export interface BufferSlot {
  buffer: number;
  buffer_offset: number;
}

export interface Neighbour {
  name: string;
  offset: number;
  end: number;
  birth: number;
  death: number;
}

export interface Gap {
  lo: number;
  hi: number;
  top?: number;
  fits: boolean;
}

/** A file: bytes, a Blob or File, text, in Node a file: URL. */
export type Input = Uint8Array | ArrayBuffer | ArrayBufferView | Blob | string | URL;

/** What every call takes besides the options. */
export interface CallOptions {
  /** The file's name; its extension picks the format (.onnx, .json, .csv); without one, ONNX and JSON are known by their bytes. */
  name?: string;
  /** Cancels the call: its promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The planner's progress, in words. */
  onProgress?: (message: string) => void;
  /** A training pair's forward graph, as the command line's --forward: the file is its backward graph, whose params take the forward plan's weight slots. */
  forward?: Input;
  /** The forward graph's file name; its extension picks the format. */
  forwardName?: string;
}

export type PlanOptions = Options & CallOptions;

/** memplan's error: the message, and where (file, path, node, line) as fields. */
export declare class MemplanError extends Error {
  kind: string;
  /** Why a plan does not fit its device, when that is the error. */
  fit?: Fit;
}
/** The located error's fields, Go's, are the class's too (declaration merging). */
export interface MemplanError extends ErrorFields {}

/** Plans a file: the record `memplan plan --json` writes. */
export declare function plan(data: Input, options?: PlanOptions): Promise<PlanRecord>;

/** Judges a record as a plan of its source, as `memplan verify` does. */
export declare function verify(record: Input | PlanRecord, data: Input, options?: PlanOptions & { recordName?: string }): Promise<{ ok: boolean; errors: MemplanError[] }>;

/** The largest value of options.symbol whose plan fits options.webgpu's device. */
export declare function fit(data: Input, options: PlanOptions & { symbol: string; webgpu: string }): Promise<SymbolFit>;

/** Why a tensor lives when and sits where it does in the file's plan. */
export declare function explain(data: Input | PlanRecord, tensor: string, options?: PlanOptions): Promise<Explanation>;

/** Compares two plans (files planned with their options, or records); optionsB are side B's whole options (default: options), the command line's -b flags and more. */
export declare function diff(a: Input | PlanRecord, b: Input | PlanRecord, options?: PlanOptions, optionsB?: PlanOptions): Promise<Diff>;

/** The plan's picture, as memplan's widget draws it: SVG text. */
export declare function svg(record: Input | PlanRecord, options?: { width?: number; height?: number; theme?: "light" | "dark"; budget?: number; name?: string; signal?: AbortSignal }): Promise<string>;

/** The largest file, in bytes, the planner reads. */
export declare function maxInputBytes(options?: { signal?: AbortSignal }): Promise<number>;

/** Ends the planner's worker; a later call starts another. */
export declare function close(): void;
