package ir

// DecodeGraph decodes a Graph JSON v1 file and validates it.
func DecodeGraph(fileName string, data []byte) (*Graph, error) {
	return nil, &Error{File: fileName, Msg: "graph JSON decoding not implemented yet"}
}
