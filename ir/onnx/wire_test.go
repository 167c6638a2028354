package onnx

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func TestWire(t *testing.T) {
	tag := func(num int, typ wireType) []byte {
		return protowire.AppendTag(nil, protowire.Number(num), protowire.Type(typ))
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	varint := func(x uint64) []byte { return protowire.AppendVarint(nil, x) }
	for _, c := range []struct {
		name string
		num  int
		typ  wireType
		in   []byte
		want int // consumeFieldValue's length, or its error
	}{
		{"varint", 1, varintType, varint(300), 2},
		{"varint of ten bytes", 1, varintType, varint(1 << 63), 10},
		{"varint over 64 bits", 1, varintType, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, errOverflow},
		{"varint cut short", 1, varintType, []byte{0x80, 0x80}, errTruncated},
		{"fixed32", 1, fixed32Type, []byte{1, 2, 3, 4, 5}, 4},
		{"fixed32 cut short", 1, fixed32Type, []byte{1, 2, 3}, errTruncated},
		{"fixed64", 1, fixed64Type, make([]byte, 8), 8},
		{"bytes", 1, bytesType, cat(varint(3), []byte("abcdef")), 4},
		{"bytes longer than the message", 1, bytesType, cat(varint(9), []byte("abc")), errTruncated},
		{"bytes of a length past any slice", 1, bytesType, varint(1 << 62), errTruncated},
		{"group", 4, startGroupType, cat(tag(1, varintType), varint(7), tag(4, endGroupType), []byte{9}), 3},
		{"nested groups", 4, startGroupType, cat(tag(5, startGroupType), tag(5, endGroupType), tag(4, endGroupType)), 3},
		{"group ended by another", 4, startGroupType, cat(tag(5, endGroupType)), errEndGroup},
		{"group never ended", 4, startGroupType, cat(tag(1, varintType), varint(7)), errTruncated},
		{"end group alone", 4, endGroupType, nil, errEndGroup},
		{"reserved wire type", 1, 6, []byte{1}, errReserved},
		{"bad tag in a group", 4, startGroupType, []byte{0x00}, errFieldNumber},
	} {
		if got := consumeFieldValue(fieldNum(c.num), c.typ, c.in); got != c.want {
			t.Errorf("%s: consumeFieldValue = %d, want %d", c.name, got, c.want)
		}
	}
}

// A million groups inside each other are skipped without a stack that
// grows with them (protowire would refuse them at its recursion limit;
// ONNX has no groups, so either answer is safe, but not a crash).
func TestWireDeepGroups(t *testing.T) {
	const depth = 1_000_000
	open := protowire.AppendTag(nil, 4, protowire.StartGroupType)
	end := protowire.AppendTag(nil, 4, protowire.EndGroupType)
	in := append(bytes.Repeat(open, depth-1), bytes.Repeat(end, depth)...)
	if got, want := consumeFieldValue(4, startGroupType, in), len(in); got != want {
		t.Fatalf("consumeFieldValue = %d, want %d", got, want)
	}
}

// Ours reads as protowire does, byte strings of every shape: lengths
// and errors alike.
func TestWireAsProtowire(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200_000 {
		b := make([]byte, r.IntN(14))
		for j := range b {
			// Bytes with the high bit set often, so varints run long.
			b[j] = byte(r.Uint32())
			if r.IntN(3) == 0 {
				b[j] |= 0x80
			}
		}
		x, n := consumeVarint(b)
		px, pn := protowire.ConsumeVarint(b)
		if n != pn || (n > 0 && x != px) {
			t.Fatalf("case %d: consumeVarint(% x) = %d, %d; protowire %d, %d", i, b, x, n, px, pn)
		}
		num, typ, n := consumeTag(b)
		pnum, ptyp, pn := protowire.ConsumeTag(b)
		if n != pn || (n > 0 && (int32(num) != int32(pnum) || int8(typ) != int8(ptyp))) {
			t.Fatalf("case %d: consumeTag(% x) = %d, %d, %d; protowire %d, %d, %d", i, b, num, typ, n, pnum, ptyp, pn)
		}
		if n > 0 {
			got, want := consumeFieldValue(num, typ, b[n:]), protowire.ConsumeFieldValue(pnum, ptyp, b[n:])
			if got != want {
				t.Fatalf("case %d: consumeFieldValue(%d, %d, % x) = %d; protowire %d", i, num, typ, b[n:], got, want)
			}
			// The same words, less protowire's "proto: " (whose space is
			// sometimes a no-break space, on purpose).
			if got < 0 {
				words := strings.TrimLeft(strings.TrimPrefix(protowire.ParseError(want).Error(), "proto:"), " \u00a0")
				if wireError(got) != words {
					t.Fatalf("case %d: %q; protowire %q", i, wireError(got), words)
				}
			}
		}
	}
}
