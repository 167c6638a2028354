// Package ir is memplan's model of a compute graph and its file formats.
//
// A Graph is a schedule of nodes, each producing one or more tensors with a
// shape (integers or symbol names) and a dtype. Decoders turn files into
// validated graphs, or into BufferTables for formats that list buffers
// directly (MiniMalloc-style CSV). Every decoding error is an *Error that
// says where (file, line:column or JSON path, node) and what is wrong.
// Package ir knows nothing of memory planning.
package ir
