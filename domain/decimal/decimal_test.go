package decimal

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
)

func TestParseFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		str    string // String()
		places int32  // Places()
		fixed2 string // StringFixed(2)
	}{
		{"0", "0", 0, "0.00"},
		{"-0", "0", 0, "0.00"},
		{"-0.0", "0", 1, "0.00"},
		{"12", "12", 0, "12.00"},
		{"-0.5", "-0.5", 1, "-0.50"},
		{"1e3", "1000", 0, "1000.00"},
		{"1E+3", "1000", 0, "1000.00"},
		{"2.5e-1", "0.25", 2, "0.25"},
		{"150000.00", "150000", 2, "150000.00"},
		{"0.001", "0.001", 3, "0.00"},
		{"0.005", "0.005", 3, "0.01"},
		{"-0.005", "-0.005", 3, "-0.01"},
		{"123.456e1", "1234.56", 2, "1234.56"},
		{"1.50e2", "150", 0, "150.00"},
		{"0e-50", "0", MaxScale, "0.00"},
		{"0e50", "0", 0, "0.00"},
		{"999999999999999999999999999999", "999999999999999999999999999999", 0, "999999999999999999999999999999.00"},
		{"0.000000000000000000000000000001", "0.000000000000000000000000000001", 30, "0.00"},
		{"1.5000000000000000000000000000000000000000", "1.5", MaxScale, "1.50"},
		{"-9223372036854775809", "-9223372036854775809", 0, "-9223372036854775809.00"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			d, err := Parse(tt.in)
			is.NoErr(err)                         // parse
			is.Equal(d.String(), tt.str)          // String
			is.Equal(d.Places(), tt.places)       // Places
			is.Equal(d.StringFixed(2), tt.fixed2) // StringFixed(2)
			back, err := Parse(d.String())
			is.NoErr(err)          // parse String again
			is.True(back.Equal(d)) // round trip keeps the value
		})
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	tests := []string{
		"", "-", "+1", ".5", "1.", "01", "-01", "00", "1e", "1e+", "1.e3", "NaN", "nan", "Inf", "-Inf", "Infinity",
		"0x10", " 1", "1 ", "1,5", "1_000", "--1", "1e1.5", "١", "12abc",
		"1e999999999", "1e-999999999", "-1e30", "1e30", "1234567890123456789012345678901",
		"1e-31", "0.0000000000000000000000000000001",
		strings.Repeat("1", MaxInputLength+1),
		"1" + strings.Repeat("0", 200),
	}
	for _, in := range tests {
		name := in
		if len(name) > 40 {
			name = name[:40] + "..."
		}
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			_, err := Parse(in)
			is.True(err != nil)                                                  // refused
			is.Equal(domain.ErrorCode(err), domain.EINVALID)                     // EINVALID
			is.True(!strings.Contains(domain.ErrorMessage(err), in) || in == "") // input not echoed
		})
	}
}

func TestPointOneAndPointTwo(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	sum := MustParse("0.1").Add(MustParse("0.2"))
	is.True(sum.Equal(MustParse("0.3")))    // 0.1 + 0.2 == 0.3
	is.Equal(sum.Cmp(MustParse("0.30")), 0) // scale does not matter
	is.Equal(sum.String(), "0.3")           // canonical
	is.Equal(sum.StringFixed(2), "0.30")    // fixed
}

func TestZeroValue(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var z Decimal
	is.True(z.IsZero())                          // zero value is 0
	is.Equal(z.Sign(), 0)                        // sign
	is.Equal(z.String(), "0")                    // String
	is.Equal(z.StringFixed(2), "0.00")           // StringFixed
	is.True(z.Add(FromInt(2)).Equal(FromInt(2))) // 0 + 2
	is.True(z.Mul(FromInt(2)).IsZero())          // 0 × 2
	is.Equal(z.Cmp(MustParse("0.000")), 0)       // equals 0.000
	v, ok := z.Scaled(2)
	is.True(ok)           // scaled
	is.Equal(v, int64(0)) // 0 cents
}

func TestRound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		places int32
		want   string // StringFixed(max(places,0)) of the result
	}{
		{"2.345", 2, "2.35"},
		{"-2.345", 2, "-2.35"},
		{"2.344", 2, "2.34"},
		{"-2.344", 2, "-2.34"},
		{"0.5", 0, "1"},
		{"-0.5", 0, "-1"},
		{"1.5", 0, "2"},
		{"2.5", 0, "3"},
		{"-2.5", 0, "-3"},
		{"0.49999999", 0, "0"},
		{"-0.49999999", 0, "0"},
		{"0.005", 2, "0.01"},
		{"-0.005", 2, "-0.01"},
		{"0.0049", 2, "0.00"},
		{"0.3", 2, "0.30"},
		{"12", 2, "12.00"},
		{"1250", -2, "1300"},
		{"-1250", -2, "-1300"},
		{"1249", -2, "1200"},
		{"99.995", 2, "100.00"},
		{"-99.995", 2, "-100.00"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			r := MustParse(tt.in).Round(tt.places)
			is.Equal(r.StringFixed(max(tt.places, 0)), tt.want) // rounded value
			is.Equal(r.Places(), max(tt.places, 0))             // carries the asked places
		})
	}
}

func TestArithmetic(t *testing.T) {
	t.Parallel()
	d := MustParse
	tests := []struct {
		name string
		got  Decimal
		want string
	}{
		{"add scales", d("1.5").Add(d("0.25")), "1.75"},
		{"add negative", d("1.5").Add(d("-2.25")), "-0.75"},
		{"sub", d("10").Sub(d("0.01")), "9.99"},
		{"mul", d("1.5").Mul(d("-0.2")), "-0.3"},
		{"mul big", d("150000.00").Mul(d("4")), "600000"},
		{"neg", d("1.5").Neg(), "-1.5"},
		{"abs", d("-1.5").Abs(), "1.5"},
		{"quo", d("150000").QuoRound(d("1976"), 2), "75.91"},
		{"quo third", d("1").QuoRound(d("3"), 4), "0.3333"},
		{"quo two thirds", d("2").QuoRound(d("3"), 4), "0.6667"},
		{"quo negative", d("-2").QuoRound(d("3"), 4), "-0.6667"},
		{"quo negative divisor", d("2").QuoRound(d("-3"), 4), "-0.6667"},
		{"quo half", d("1").QuoRound(d("8"), 2), "0.13"},
		{"quo half negative", d("-1").QuoRound(d("8"), 2), "-0.13"},
		{"quo scaled divisor", d("10").QuoRound(d("0.25"), 0), "40"},
		{"quo fractions", d("0.001").QuoRound(d("0.3"), 3), "0.003"},
		{"quo negative places", d("12345").QuoRound(d("1"), -2), "12300"},
		{"new", New(1234, 2), "12.34"},
		{"new negative scale", New(5, -3), "5000"},
		{"from scaled", FromScaled(-1999, 2), "-19.99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(tt.got.String(), tt.want) // result
		})
	}
}

func TestCmp(t *testing.T) {
	t.Parallel()
	d := MustParse
	tests := []struct {
		a, b string
		want int
	}{
		{"0.3", "0.30", 0},
		{"1", "1.0000001", -1},
		{"-1", "-1.0000001", 1},
		{"1e3", "999.99", 1},
		{"-0", "0", 0},
	}
	for _, tt := range tests {
		t.Run(tt.a+" vs "+tt.b, func(t *testing.T) {
			is := is.New(t)
			is.Equal(d(tt.a).Cmp(d(tt.b)), tt.want)  // a vs b
			is.Equal(d(tt.b).Cmp(d(tt.a)), -tt.want) // b vs a
		})
	}
}

func TestScaled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		places int32
		want   int64
		ok     bool
	}{
		{"19.99", 2, 1999, true},
		{"19.9", 2, 1990, true},
		{"19", 2, 1900, true},
		{"-19.99", 2, -1999, true},
		{"19.995", 2, 0, false},
		{"19.990", 2, 1999, true},
		{"92233720368547758.07", 2, 9223372036854775807, true},
		{"92233720368547758.08", 2, 0, false},
		{"-92233720368547758.08", 2, -9223372036854775808, true},
		{"1", 19, 0, false},
		{"1", 18, 1000000000000000000, true},
		{"1", 40, 0, false},
		{"0", 40, 0, true},
		{"1200", -2, 12, true},
		{"1250", -2, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			d := MustParse(tt.in)
			got, ok := d.Scaled(tt.places)
			is.Equal(ok, tt.ok)    // exact and in range
			is.Equal(got, tt.want) // scaled value
			if ok && tt.places >= 0 {
				is.True(FromScaled(got, tt.places).Equal(d)) // FromScaled inverts Scaled
			}
		})
	}
}

func TestQuoRoundByZeroPanics(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	defer func() {
		is.True(recover() != nil) // division by zero panics
	}()
	FromInt(1).QuoRound(Decimal{}, 2)
}

func TestMustParsePanics(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	defer func() {
		is.True(recover() != nil) // bad literal panics
	}()
	MustParse("x")
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "12", "-0.5", "1e3", "150000.00", "0.1", "2.5E-1", "1e999999999", "1e-31", "NaN",
		"999999999999999999999999999999", "0.000000000000000000000000000001", "-1.5000000000000000000000000000000000e5",
		"", "+1", ".5", "1.", "00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if err != nil {
			if domain.ErrorCode(err) != domain.EINVALID {
				t.Fatalf("Parse(%q): error %v is not EINVALID", s, err)
			}
			return
		}
		str := d.String()
		back, err := Parse(str)
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", s, str, err)
		}
		if back.Cmp(d) != 0 {
			t.Fatalf("Parse(%q) = %s, parsed again %s", s, str, back)
		}
		if back.String() != str {
			t.Fatalf("String not canonical: %q then %q", str, back.String())
		}
		fixed := d.StringFixed(d.Places())
		again, err := Parse(fixed)
		if err != nil || again.Cmp(d) != 0 || again.Places() != d.Places() {
			t.Fatalf("StringFixed(%d) of %q = %q does not round trip (%v)", d.Places(), s, fixed, err)
		}
		_ = d.Round(2).Add(d).Sub(d).Mul(d).StringFixed(2)
	})
}

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		_, _ = Parse("150000.00")
	}
}

func BenchmarkParseHostile(b *testing.B) {
	for b.Loop() {
		_, _ = Parse("1e999999999")
	}
}

func BenchmarkCostPerHour(b *testing.B) {
	inc, fte, hours := MustParse("150000.00"), MustParse("0.5"), FromInt(1976)
	for b.Loop() {
		_ = inc.QuoRound(fte.Mul(hours), 2)
	}
}

// TestStringFixedFastPath checks the int64 formatting against math/big's
// on the edges: zero, signs, padding, rounding halves, int64's ends and
// values beyond them.
func TestStringFixedFastPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in     string
		places int32
		want   string
	}{
		{"0", 2, "0.00"},
		{"0.005", 2, "0.01"},
		{"-0.005", 2, "-0.01"},
		{"-0.004", 2, "0.00"},
		{"0.3", 2, "0.30"},
		{"150000", 2, "150000.00"},
		{"-12.345", 2, "-12.35"},
		{"12.344", 0, "12"},
		{"0.0001", 4, "0.0001"},
		{"0.0001", 6, "0.000100"},
		{"9223372036854775807", 0, "9223372036854775807"},
		{"9223372036854775807", 1, "9223372036854775807.0"}, // beyond int64: math/big
		{"-9223372036854775808", 0, "-9223372036854775808"},
		{"123456789012345678901234567890", 2, "123456789012345678901234567890.00"},
		{"1.5", -1, "0"},
		{"15", -1, "20"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			is := is.New(t)
			d := MustParse(tc.in)
			is.Equal(d.StringFixed(tc.places), tc.want)
			is.Equal(d.StringFixed(tc.places), d.Round(tc.places).formatBig()) // fast path == big path
		})
	}
}

// FuzzStringFixed compares the int64 path with math/big's on any value.
func FuzzStringFixed(f *testing.F) {
	f.Add(int64(12345), int32(3), int32(2))
	f.Add(int64(-5), int32(1), int32(0))
	f.Add(int64(-9223372036854775808), int32(0), int32(18))
	f.Fuzz(func(t *testing.T, c int64, scale, places int32) {
		if scale < 0 || scale > 40 || places < -5 || places > 40 {
			return
		}
		d := New(c, scale)
		if got, want := d.StringFixed(places), d.Round(places).formatBig(); got != want {
			t.Fatalf("New(%d, %d).StringFixed(%d) = %q, math/big says %q", c, scale, places, got, want)
		}
		if got, want := d.format(), d.formatBig(); got != want {
			t.Fatalf("New(%d, %d).format() = %q, math/big says %q", c, scale, got, want)
		}
	})
}
