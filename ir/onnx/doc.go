// Package onnx decodes ONNX models (ModelProto files) into memplan graphs.
//
// It reads the main graph from the protobuf wire format, sorts its nodes
// topologically, infers every tensor's shape and dtype (folding small constant shape
// arithmetic), and maps ONNX views such as Reshape and axis-0 Slice to
// aliasing nodes. Importing the package registers the "onnx" format with
// ir.Decode.
//
// The mapping, in schedule order:
//
//   - graph inputs that are not initializers become "input" nodes, then
//     every initializer a "param" node (path graph.input[i],
//     graph.initializer[i]);
//   - nodes follow in topological order (file order among ready nodes; a
//     note says when the file was not sorted). Constant nodes, and
//     ConstantOfShape nodes fed only by initializers or Constants, become
//     "constant" nodes without inputs; other ops keep their op_type
//     ("Conv"), prefixed by their domain if not the default one
//     ("com.microsoft.Attention"). Each node's path is graph.node[i], its
//     index in the file;
//   - Reshape, Flatten, Squeeze, Unsqueeze and Identity alias their data
//     input (ir.AliasWhole); a Slice with constant bounds and step 1 that
//     cuts only axis 0 is an ir.AliasNarrow of its input;
//   - element types map to ir dtypes by name (uint16 to u16, int4 to i4,
//     float8e4m3fn to f8e4m3fn, ...); int4, uint4 and float4e2m1 are
//     packed two to a byte as ONNX stores them, and a Slice of them whose
//     first row starts inside a byte is a copy, not a view. string and
//     complex tensors are refused by name;
//   - If, Loop and Scan are single steps: their outputs are planned, the
//     tensors inside their subgraphs are not (a note says so), and the
//     outer tensors a subgraph reads are added to the node's inputs.
//
// Symbolic input dims (dim_param) are bound from DecodeOptions.Symbols
// and every tensor gets a concrete shape; Graph.Symbols records the
// bound values used. A value_info entry that disagrees with inference
// wins, with a note. Decode never guesses a size: a tensor whose shape
// cannot be determined fails decoding at the first failure in schedule
// order (not at the nodes consuming its result), naming the op, the node,
// the input shapes and the rule that failed, or the symbols to bind. An
// If is sized by its branch when its condition is a constant; otherwise
// its branches must agree unless DecodeOptions.IfBranch picks one. Split
// without sizes follows the model's opset: an even split, or from opset
// 18 num_outputs' ceil(n/k) chunks. Every tensor, and the sum of all, must
// stay below 2^62 bytes; names must be UTF-8. The data of an initializer
// or a Constant's value must be as long as its dims and type say (raw_data
// in bytes, a typed field in entries), or decoding fails naming it; one
// without data plans from its dims. Errors are *ir.Error; a
// corrupt or truncated file gives the byte offset where decoding failed.
package onnx
