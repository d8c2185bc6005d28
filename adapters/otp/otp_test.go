package otp_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"regexp"
	"testing"

	"counsel/adapters/otp"

	"github.com/matryer/is"
)

// limit is the largest multiple of 10^6 below 2^32: draws at or above it
// are redrawn.
const limit = (1 << 32) / 1_000_000 * 1_000_000

// script is a reader that hands out the given 32-bit values, big-endian,
// and then fails, so a test knows exactly how many draws a code took.
func script(vs ...uint32) io.Reader {
	var b bytes.Buffer
	for _, v := range vs {
		binary.Write(&b, binary.BigEndian, v)
	}
	return &b
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		draws []uint32
		want  string
		err   bool
	}{
		{"zero", []uint32{0}, "000000", false},
		{"leading zeros kept", []uint32{42}, "000042", false},
		{"last value below the limit", []uint32{limit - 1}, "999999", false},
		{"value modulo a million", []uint32{3_123_456}, "123456", false},
		{"the limit itself is redrawn", []uint32{limit, 7}, "000007", false},
		{"values above the limit are redrawn", []uint32{limit + 5, 1<<32 - 1, 654_321}, "654321", false},
		{"a source that runs dry is an error", []uint32{limit}, "", true},
		{"an empty source is an error", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := script(tt.draws...)
			code, err := otp.New([]byte("k"), r).Generate()
			if tt.err {
				is.True(err != nil) // no code without randomness
				is.Equal(code, "")  // nothing returned
				return
			}
			is.NoErr(err)           // generated
			is.Equal(code, tt.want) // the value of the last draw
		})
	}

	t.Run("a partial read is an error", func(t *testing.T) {
		is := is.New(t)
		_, err := otp.New(nil, bytes.NewReader([]byte{1, 2})).Generate()
		is.True(errors.Is(err, io.ErrUnexpectedEOF)) // wraps the reader's error
	})
}

func TestGenerateDistribution(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c := otp.New([]byte("key"), nil) // crypto/rand
	six := regexp.MustCompile(`^[0-9]{6}$`)
	const n = 10_000
	var counts [6][10]int
	seen := map[string]bool{}
	for range n {
		code, err := c.Generate()
		is.NoErr(err)                  // generate
		is.True(six.MatchString(code)) // six digits
		for i, d := range code {
			counts[i][d-'0']++
		}
		seen[code] = true
	}
	for pos, digits := range counts {
		for d, k := range digits {
			// Expected 1000 each; 700 is more than 9 standard deviations
			// away, so this fails only for a broken generator.
			if k < 700 || k > 1300 {
				t.Errorf("digit %d at position %d appeared %d times in %d codes", d, pos, k, n)
			}
		}
	}
	// 10k draws from a million values collide about 50 times.
	is.True(len(seen) > n-200) // codes are not repeated
}

func TestHash(t *testing.T) {
	t.Parallel()
	a := otp.New([]byte("key-a"), nil)
	b := otp.New([]byte("key-b"), nil)
	base := a.Hash("user@example.com", "123456")
	tests := []struct {
		name  string
		hash  []byte
		equal bool
	}{
		{"same key, email and code", otp.New([]byte("key-a"), nil).Hash("user@example.com", "123456"), true},
		{"another key", b.Hash("user@example.com", "123456"), false},
		{"another email", a.Hash("other@example.com", "123456"), false},
		{"another code", a.Hash("user@example.com", "123457"), false},
		{"email and code are separated", a.Hash("user@example.com1", "23456"), false},
		{"email case matters (callers normalize)", a.Hash("User@example.com", "123456"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(len(tt.hash), 32)                     // HMAC-SHA256
			is.Equal(bytes.Equal(tt.hash, base), tt.equal) // keyed and deterministic
		})
	}

	t.Run("the hash does not contain the code", func(t *testing.T) {
		is := is.New(t)
		is.True(!bytes.Contains(base, []byte("123456"))) // not stored in the clear
	})
}
