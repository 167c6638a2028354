// Generated from Go by `go generate ./wasm/protocol/typedefs`; do not edit.
// The messages between a host page and memplan's viewer (docs/embedding.md),
// as JSDoc typedefs for the page scripts: Go's types are the contract.

/**
 * @typedef {object} CameraCommand
 * @property {"camera"} type
 * @property {number} x0
 * @property {number} y0
 * @property {number} x1
 * @property {number} y1
 */

/**
 * @typedef {object} CursorCommand
 * @property {"cursor"} type
 * @property {number|null} [step]
 * @property {number|null} [by]
 */

/**
 * @typedef {object} DismissCommand
 * @property {"dismiss"} type
 */

/**
 * @typedef {object} ExampleCommand
 * @property {"example"} type
 * @property {string} name
 * @property {Options|null} [options]
 * @property {Object<string, string>} attributes
 */

/**
 * @typedef {object} ExplainCommand
 * @property {"explain"} type
 * @property {string} tensor
 */

/**
 * @typedef {object} ExportCommand
 * @property {"export"} type
 * @property {string} what
 */

/**
 * @typedef {object} FitCommand
 * @property {"fit"} type
 */

/**
 * @typedef {object} FocusCommand
 * @property {"focus"} type
 * @property {string} name
 */

/**
 * @typedef {object} HelpCommand
 * @property {"help"} type
 * @property {boolean} open
 */

/**
 * @typedef {object} KeyCommand
 * @property {"key"} type
 * @property {string} key
 * @property {boolean} shift
 */

/**
 * @typedef {object} LargestCommand
 * @property {"largest"} type
 * @property {string} symbol
 */

/**
 * @typedef {object} LeaveCommand
 * @property {"leave"} type
 */

/**
 * @typedef {object} LoadCommand
 * @property {"load"} type
 * @property {string} name
 * @property {ArrayBuffer|ArrayBufferView|Blob|string} data
 * @property {Options|null} [options]
 * @property {Object<string, string>} attributes
 */

/**
 * @typedef {object} LocationCommand
 * @property {"location"} type
 * @property {string} search
 * @property {string} hash
 */

/**
 * @typedef {object} OptionsCommand
 * @property {"options"} type
 * @property {Options|null} [options]
 * @property {Object<string, string>} attributes
 */

/**
 * @typedef {object} PeakCommand
 * @property {"peak"} type
 */

/**
 * @typedef {object} PingCommand
 * @property {"ping"} type
 */

/**
 * @typedef {object} PlaceCommand
 * @property {"place"} type
 * @property {string} name
 * @property {number} offset
 */

/**
 * @typedef {object} PlacingCommand
 * @property {"placing"} type
 * @property {string} action
 */

/**
 * @typedef {object} ProfileCommand
 * @property {"profile"} type
 * @property {DeviceLimits} limits
 */

/**
 * @typedef {object} RecordCommand
 * @property {"record"} type
 */

/**
 * @typedef {object} RevealCommand
 * @property {"reveal"} type
 * @property {number|null} [count]
 */

/**
 * @typedef {object} SelectCommand
 * @property {"select"} type
 * @property {string} name
 */

/**
 * @typedef {object} ThemeCommand
 * @property {"theme"} type
 * @property {string} name
 */

/**
 * @typedef {object} WheelCommand
 * @property {"wheel"} type
 * @property {number} x
 * @property {number} y
 * @property {number} delta
 */

/**
 * @typedef {object} WordsCommand
 * @property {"words"} type
 * @property {Array<number>} numbers
 */

/**
 * @typedef {object} WorldCommand
 * @property {"world"} type
 * @property {number} steps
 * @property {number} bytes
 */

/**
 * @typedef {object} BusyEvent
 * @property {"memplan"} source
 * @property {"busy"} type
 * @property {string} file
 * @property {string} [message]
 */

/**
 * @typedef {object} CameraEvent
 * @property {"memplan"} source
 * @property {"camera"} type
 * @property {number} x0
 * @property {number} y0
 * @property {number} x1
 * @property {number} y1
 */

/**
 * @typedef {object} CursorEvent
 * @property {"memplan"} source
 * @property {"cursor"} type
 * @property {number} step
 * @property {number} live_bytes
 * @property {number} lower_bound
 * @property {number} arena
 * @property {string} op
 * @property {Array<string>} reads
 * @property {Array<string>} writes
 * @property {Array<CursorTensor>} live
 * @property {number} peak
 * @property {Array<Array<string>>} rows
 */

/**
 * @typedef {object} ErrorEvent
 * @property {"memplan"} source
 * @property {"error"} type
 * @property {string} message
 * @property {string} [file]
 * @property {number} [line]
 * @property {number} [column]
 * @property {string} [path]
 * @property {string} [node]
 * @property {string} [need]
 * @property {string} [hint]
 * @property {Array<string>} [symbols]
 * @property {string} [param]
 * @property {string} kind
 * @property {string|null} [showing]
 * @property {FitChoices|null} [fit_choices]
 */

/**
 * @typedef {object} ExplainEvent
 * @property {"memplan"} source
 * @property {"explain"} type
 * @property {string} tensor
 * @property {string} [text]
 * @property {string} [producer]
 * @property {string} [last_reader]
 * @property {string} [death_reason]
 * @property {string} [kept_by]
 * @property {Array<string>} conflicts
 * @property {string} [rule]
 * @property {Explanation|null} [record]
 * @property {string} [error]
 */

/**
 * @typedef {object} HoverEvent
 * @property {"memplan"} source
 * @property {"hover"} type
 * @property {number} x
 * @property {number} y
 * @property {TensorInfo|null} [tensor]
 * @property {string} [part]
 */

/**
 * @typedef {object} LargestEvent
 * @property {"memplan"} source
 * @property {"largest"} type
 * @property {string} file
 * @property {string} symbol
 * @property {*} [largest]
 * @property {Error|null} [error]
 */

/**
 * @typedef {object} PictureEvent
 * @property {"memplan"} source
 * @property {"picture"} type
 * @property {string} file
 * @property {number} width
 * @property {number} height
 * @property {string} theme
 * @property {PlanFacts|null} [summary]
 */

/**
 * @typedef {object} PlacedEvent
 * @property {"memplan"} source
 * @property {"placed"} type
 * @property {string} file
 * @property {boolean} placing
 * @property {boolean} valid
 * @property {Array<Conflict>} conflicts
 * @property {number} overlaps
 * @property {number} arena
 * @property {number} lower_bound
 * @property {number} aligned_lower_bound
 * @property {number} planner_arena
 * @property {string} planner_strategy
 * @property {boolean} optimal
 * @property {string} [problem]
 * @property {string} text
 * @property {Array<Array<string>>} rows
 * @property {string} [moved]
 * @property {number} undo
 * @property {number} redo
 * @property {string} selected
 * @property {number} offset
 * @property {boolean} tab_forward
 * @property {boolean} tab_back
 */

/**
 * @typedef {object} PongEvent
 * @property {"memplan"} source
 * @property {"pong"} type
 * @property {number} version
 */

/**
 * @typedef {object} ProfileEvent
 * @property {"memplan"} source
 * @property {"profile"} type
 * @property {string} profile
 * @property {string} doc
 * @property {Array<Array<string>>} rows
 */

/**
 * @typedef {object} ProgressEvent
 * @property {"memplan"} source
 * @property {"progress"} type
 * @property {string} file
 * @property {string} message
 */

/**
 * @typedef {object} ReadyEvent
 * @property {"memplan"} source
 * @property {"ready"} type
 * @property {number} version
 * @property {Array<string>} examples
 * @property {Array<string>} strategies
 * @property {Object<string, Object<string, string>>} kinds
 * @property {Array<KeyBinding>} keys
 * @property {Options} defaults
 * @property {Array<InputAlignment>} alignments
 * @property {number} f32_uniform_budget
 * @property {string} f32_uniform_budget_text
 * @property {Array<string>} file_types
 * @property {Array<ProfileChoice>} profiles
 * @property {string} baseline
 * @property {Array<string>} bindings
 * @property {number} max_input
 */

/**
 * @typedef {object} RecordEvent
 * @property {"memplan"} source
 * @property {"record"} type
 * @property {string|null} [file]
 * @property {Plan|null} [record]
 */

/**
 * @typedef {object} SelectEvent
 * @property {"memplan"} source
 * @property {"select"} type
 * @property {TensorInfo|null} [tensor]
 * @property {Array<TensorInfo>} partners
 * @property {number} cursor
 */

/**
 * @typedef {object} StateEvent
 * @property {"memplan"} source
 * @property {"state"} type
 * @property {string} hash
 * @property {boolean} push
 * @property {string} file
 * @property {string} [note]
 * @property {RestoredState|null} [restored]
 */

/**
 * @typedef {object} SummaryEvent
 * @property {"memplan"} source
 * @property {"summary"} type
 * @property {string} file
 * @property {PlanSummary} summary
 */

/**
 * @typedef {object} TensorsEvent
 * @property {"memplan"} source
 * @property {"tensors"} type
 * @property {string} file
 * @property {number} [rev]
 * @property {boolean} [placing]
 */

/**
 * @typedef {object} WordsEvent
 * @property {"memplan"} source
 * @property {"words"} type
 * @property {Array<string>} grouped
 * @property {Array<string>} bytes
 */

/**
 * @typedef {object} Options
 * @property {number} alignment
 * @property {boolean} f32_uniform
 * @property {boolean} no_reuse
 * @property {boolean} skip_params
 * @property {boolean} skip_inputs
 * @property {boolean} skip_constants
 * @property {number} guard
 * @property {Object<string, number>} [symbols]
 * @property {string} strategy
 * @property {number} budget
 * @property {string} [if_branch]
 * @property {string} [symbols_text]
 * @property {string} [webgpu]
 * @property {string} [binding]
 * @property {string} [limits]
 * @property {number} [node_limit]
 */

/**
 * @typedef {object} DeviceLimits
 * @property {number} maxStorageBufferBindingSize
 * @property {number} maxBufferSize
 * @property {number} minStorageBufferOffsetAlignment
 */

/**
 * @typedef {object} CursorTensor
 * @property {string} name
 * @property {number} offset
 * @property {number} size
 * @property {string} kind
 * @property {string} offset_text
 * @property {string} size_text
 */

/**
 * @typedef {object} FitChoices
 * @property {string} file
 * @property {Array<FitSymbol>} symbols
 * @property {string} [note]
 */

/**
 * @typedef {object} Explanation
 * @property {string} tensor
 * @property {string} kind
 * @property {number} birth
 * @property {number} death
 * @property {string} [producer]
 * @property {string} [producer_op]
 * @property {string} death_reason
 * @property {string} [last_reader]
 * @property {string} [kept_by]
 * @property {string} [root]
 * @property {number} [view_offset]
 * @property {boolean} [skipped]
 * @property {PlaceReason|null} [placement]
 * @property {string} text
 */

/**
 * @typedef {object} TensorInfo
 * @property {number} index
 * @property {PlanTensor|null} [tensor]
 * @property {string} color
 * @property {Rect|null} [rect]
 * @property {Array<Array<string>>} rows
 * @property {string} line
 */

/**
 * @typedef {object} Error
 * @property {string} message
 * @property {string} [file]
 * @property {number} [line]
 * @property {number} [column]
 * @property {string} [path]
 * @property {string} [node]
 * @property {string} [need]
 * @property {string} [hint]
 * @property {Array<string>} [symbols]
 * @property {string} [param]
 * @property {string} kind
 */

/**
 * @typedef {object} PlanFacts
 * @property {string} name
 * @property {string} strategy
 * @property {number} arena_size
 * @property {number} lower_bound
 * @property {boolean} proven
 * @property {number} tensors
 * @property {Fit|null} [fit]
 * @property {string} text
 */

/**
 * @typedef {object} Conflict
 * @property {string} a
 * @property {string} b
 * @property {number} from
 * @property {number} to
 */

/**
 * @typedef {object} KeyBinding
 * @property {Array<string>} keys
 * @property {string} label
 * @property {string} action
 * @property {string} help
 * @property {string} [mode]
 */

/**
 * @typedef {object} InputAlignment
 * @property {string} format
 * @property {string} name
 * @property {number} alignment
 */

/**
 * @typedef {object} ProfileChoice
 * @property {string} profile
 * @property {number} maxStorageBufferBindingSize
 * @property {number} maxBufferSize
 * @property {number} minStorageBufferOffsetAlignment
 * @property {string} doc
 * @property {string} text
 */

/**
 * @typedef {object} Plan
 * @property {string} format
 * @property {string} name
 * @property {number} arena_size
 * @property {number} lower_bound
 * @property {number} aligned_lower_bound
 * @property {number} total_unshared
 * @property {number} saved
 * @property {number} fragmentation
 * @property {number} alignment
 * @property {string} strategy
 * @property {boolean} optimal
 * @property {boolean} [optimal_by_search]
 * @property {PlannerOptions} options
 * @property {number} steps
 * @property {Array<string>} schedule
 * @property {Array<string>} [phases]
 * @property {Array<Array<number>>} reads
 * @property {Array<PlanTensor>} tensors
 * @property {IO} io
 * @property {Object<string, number>} symbols
 * @property {Array<string>} [notes]
 * @property {Array<string>} [placement_order]
 * @property {string} [binding]
 * @property {Limits|null} [limits]
 * @property {Array<GPUBuffer>} [buffers]
 * @property {string} [placement_rule]
 * @property {string} fingerprint
 */

/**
 * @typedef {object} RestoredState
 * @property {Options} options
 * @property {number} step
 */

/**
 * @typedef {object} PlanSummary
 * @property {string} name
 * @property {string} strategy
 * @property {boolean} optimal
 * @property {boolean} proven
 * @property {number} arena_size
 * @property {number} lower_bound
 * @property {number} total_unshared
 * @property {number} saved
 * @property {number} fragmentation
 * @property {number} steps
 * @property {number} tensors
 * @property {number} alignment
 * @property {PlannerOptions} options
 * @property {Array<string>} notes
 * @property {Object<string, number>} symbols
 * @property {number} budget
 * @property {boolean} over_budget
 * @property {Array<PhaseSummary>} phases
 * @property {*} placement_order
 * @property {string} binding
 * @property {Limits|null} [limits]
 * @property {Array<GPUBuffer>} buffers
 * @property {number} alignment_chosen
 * @property {number} default_alignment
 * @property {Fit|null} [fit]
 * @property {string} embed
 * @property {Array<Array<string>>} rows
 * @property {FitChoices|null} [fit_choices]
 */

/**
 * @typedef {object} FitSymbol
 * @property {string} name
 * @property {string} label
 */

/**
 * @typedef {object} PlaceReason
 * @property {string} buffer
 * @property {number} offset
 * @property {number} span
 * @property {number} birth
 * @property {number} death
 * @property {string} rule
 * @property {number} turn
 * @property {number} of
 * @property {Array<Neighbour>} conflicts
 * @property {Array<Gap>} gaps
 * @property {number} chosen
 * @property {boolean} holds
 */

/**
 * @typedef {object} PlanTensor
 * @property {string} name
 * @property {string} op
 * @property {string} [node]
 * @property {string} [phase]
 * @property {string} kind
 * @property {Array<number>} shape
 * @property {string} dtype
 * @property {number} size
 * @property {number} offset
 * @property {number} guard
 * @property {number} birth
 * @property {number} death
 * @property {string} [reuses]
 * @property {string} [root]
 * @property {number} view_offset
 * @property {boolean} [skipped]
 * @property {number} [alignment]
 * @property {BufferSlot|null} [BufferSlot]
 */

/**
 * @typedef {object} Rect
 * @property {number} x
 * @property {number} y
 * @property {number} w
 * @property {number} h
 */

/**
 * @typedef {object} Fit
 * @property {number} budget
 * @property {string} limit
 * @property {boolean} fits
 * @property {number} [over]
 * @property {string} text
 * @property {string} [binding]
 * @property {Limits|null} [limits]
 * @property {Array<Violation>} [violations]
 * @property {RequiredLimits|null} [required_limits]
 * @property {string} [runs_on]
 * @property {Array<string>} [lines]
 */

/**
 * @typedef {object} PlannerOptions
 * @property {number} alignment
 * @property {boolean} f32_uniform
 * @property {boolean} no_reuse
 * @property {boolean} skip_params
 * @property {boolean} skip_inputs
 * @property {boolean} skip_constants
 * @property {number} guard
 * @property {Object<string, number>} [symbols]
 */

/**
 * @typedef {object} IO
 * @property {Array<string>} inputs
 * @property {Array<string>} params
 * @property {Array<string>} constants
 * @property {Array<string>} outputs
 */

/**
 * @typedef {object} Limits
 * @property {string} profile
 * @property {number} maxStorageBufferBindingSize
 * @property {number} maxBufferSize
 * @property {number} minStorageBufferOffsetAlignment
 */

/**
 * @typedef {object} GPUBuffer
 * @property {number} offset
 * @property {number} size
 */

/**
 * @typedef {object} PhaseSummary
 * @property {string} phase
 * @property {number} first
 * @property {number} last
 * @property {number} peak
 */

/**
 * @typedef {object} Neighbour
 * @property {string} name
 * @property {number} offset
 * @property {number} end
 * @property {number} birth
 * @property {number} death
 */

/**
 * @typedef {object} Gap
 * @property {number} lo
 * @property {number} hi
 * @property {number} [top]
 * @property {boolean} fits
 */

/**
 * @typedef {object} BufferSlot
 * @property {number} buffer
 * @property {number} buffer_offset
 */

/**
 * @typedef {object} Violation
 * @property {string} [tensor]
 * @property {number} size
 * @property {string} limit
 * @property {number} max
 * @property {Array<string>} [symbols]
 * @property {string} text
 */

/**
 * @typedef {object} RequiredLimits
 * @property {number} maxStorageBufferBindingSize
 * @property {number} maxBufferSize
 * @property {number} [minStorageBufferOffsetAlignment]
 */
export {};
