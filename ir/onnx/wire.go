package onnx

import "encoding/binary"

// The protobuf wire format, as far as reading onnx.proto needs it. It is
// ours rather than protowire's because protowire's error package seeds
// itself at start-up by hashing the running executable, which links the
// os package's file reading into the planner worker's wasm: about 20 kB
// gzipped that every visitor downloads for a file it never opens.

// fieldNum is a field's number in its message.
type fieldNum int32

// wireType is how a field's value is written.
type wireType int8

const (
	varintType     wireType = 0
	fixed64Type    wireType = 1
	bytesType      wireType = 2
	startGroupType wireType = 3
	endGroupType   wireType = 4
	fixed32Type    wireType = 5
)

// The negative lengths the consume functions return, each an error.
const (
	errTruncated   = -1 // the value runs past the end
	errFieldNumber = -2 // a field number below 1 or over 2^31-1
	errOverflow    = -3 // a varint longer than ten bytes or over 64 bits
	errReserved    = -4 // wire type 6 or 7
	errEndGroup    = -5 // a group ended by another field's marker
)

// wireError says what a negative length from a consume function means.
func wireError(n int) string {
	switch n {
	case errTruncated:
		return "unexpected EOF"
	case errFieldNumber:
		return "invalid field number"
	case errOverflow:
		return "variable length integer overflow"
	case errReserved:
		return "cannot parse reserved wire type"
	case errEndGroup:
		return "mismatching end group marker"
	}
	return "parse error"
}

// consumeVarint reads a base-128 varint: its value and length, or a
// negative length.
func consumeVarint(b []byte) (uint64, int) {
	var x uint64
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, errTruncated
		}
		c := b[i]
		if i == 9 && c > 1 {
			return 0, errOverflow // the tenth byte holds bit 63 only
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, i + 1
		}
	}
	return 0, errOverflow
}

// consumeTag reads a field's tag: its number, wire type and length.
func consumeTag(b []byte) (fieldNum, wireType, int) {
	x, n := consumeVarint(b)
	if n < 0 {
		return 0, 0, n
	}
	// As protowire reads it: numbers over the spec's 2^29-1 still read.
	if x>>3 < 1 || x>>3 > 1<<31-1 {
		return 0, 0, errFieldNumber
	}
	return fieldNum(x >> 3), wireType(x & 7), n
}

func consumeFixed32(b []byte) (uint32, int) {
	if len(b) < 4 {
		return 0, errTruncated
	}
	return binary.LittleEndian.Uint32(b), 4
}

func consumeFixed64(b []byte) (uint64, int) {
	if len(b) < 8 {
		return 0, errTruncated
	}
	return binary.LittleEndian.Uint64(b), 8
}

// consumeBytes reads a length-delimited value: its payload and the
// length with its prefix.
func consumeBytes(b []byte) ([]byte, int) {
	l, n := consumeVarint(b)
	if n < 0 {
		return nil, n
	}
	if l > uint64(len(b)-n) {
		return nil, errTruncated
	}
	return b[n : n+int(l)], n + int(l)
}

// consumeFieldValue skips the value of field num of wire type typ, a
// group with every field inside it. Groups nest by a count, not by
// recursion, so a file of a million nested groups needs no stack.
func consumeFieldValue(num fieldNum, typ wireType, b []byte) int {
	var open []fieldNum // the groups entered, innermost last
	pos := 0
	for {
		var n int
		switch typ {
		case varintType:
			_, n = consumeVarint(b[pos:])
		case fixed32Type:
			_, n = consumeFixed32(b[pos:])
		case fixed64Type:
			_, n = consumeFixed64(b[pos:])
		case bytesType:
			_, n = consumeBytes(b[pos:])
		case startGroupType:
			open = append(open, num)
		case endGroupType:
			if len(open) == 0 || open[len(open)-1] != num {
				return errEndGroup
			}
			open = open[:len(open)-1]
		default:
			return errReserved
		}
		if n < 0 {
			return n
		}
		pos += n
		if len(open) == 0 {
			return pos
		}
		num, typ, n = consumeTag(b[pos:])
		if n < 0 {
			return n
		}
		pos += n
	}
}
