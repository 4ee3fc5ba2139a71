package philoxref

import "testing"

// The known-answer vectors of Random123 (kat_vectors, philox4x32 and
// philox4x64 at 10 rounds): counter, key, result. The third rows are the
// digits of pi the Random123 tests use.
func TestPhilox4x32KAT(t *testing.T) {
	for _, c := range []struct{ ctr, key, want []uint32 }{
		{[]uint32{0, 0, 0, 0}, []uint32{0, 0}, []uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, []uint32{0xffffffff, 0xffffffff}, []uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, []uint32{0xa4093822, 0x299f31d0}, []uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	} {
		got := Philox4x32([4]uint32(c.ctr), [2]uint32(c.key), 10)
		if got != [4]uint32(c.want) {
			t.Errorf("philox4x32_10(%08x, %08x) = %08x, want %08x", c.ctr, c.key, got, c.want)
		}
	}
}

func TestPhilox4x64KAT(t *testing.T) {
	for _, c := range []struct{ ctr, key, want []uint64 }{
		{[]uint64{0, 0, 0, 0}, []uint64{0, 0}, []uint64{0x16554d9eca36314c, 0xdb20fe9d672d0fdc, 0xd7e772cee186176b, 0x7e68b68aec7ba23b}},
		{[]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, []uint64{^uint64(0), ^uint64(0)}, []uint64{0x87b092c3013fe90b, 0x438c3c67be8d0224, 0x9cc7d7c69cd777b6, 0xa09caebf594f0ba0}},
		{[]uint64{0x243f6a8885a308d3, 0x13198a2e03707344, 0xa4093822299f31d0, 0x082efa98ec4e6c89}, []uint64{0x452821e638d01377, 0xbe5466cf34e90c6c}, []uint64{0xa528f45403e61d95, 0x38c72dbd566e9788, 0xa5a1610e72fd18b5, 0x57bd43b5e52b7fe6}},
	} {
		got := Philox4x64([4]uint64(c.ctr), [2]uint64(c.key), 10)
		if got != [4]uint64(c.want) {
			t.Errorf("philox4x64_10(%016x, %016x) = %016x, want %016x", c.ctr, c.key, got, c.want)
		}
	}
}

// The largest word maps below 1, zero and -1 (all ones) to 0.
func TestUniform(t *testing.T) {
	if u := Uniform32(0x7fffffff); u >= 1 || u < 0.99999994 {
		t.Errorf("Uniform32(2^31-1) = %v", u)
	}
	if Uniform32(0) != 0 || Uniform32(0xffffffff) != 0 || Uniform64(0) != 0 || Uniform64(^uint64(0)) != 0 {
		t.Error("Uniform of 0 or all ones is not 0")
	}
	if u := Uniform64(1<<63 - 1); u >= 1 {
		t.Errorf("Uniform64(2^63-1) = %v", u)
	}
}
