package ir

// DecodeBufferCSV decodes a MiniMalloc-style buffer CSV file.
func DecodeBufferCSV(fileName string, data []byte) (*BufferTable, error) {
	return nil, &Error{File: fileName, Msg: "buffer CSV decoding not implemented yet"}
}
