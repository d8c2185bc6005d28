// Package decimal is an exact decimal number for money and ratios. Counsel
// never keeps money in a float64: 0.1 + 0.2 must be 0.3, and an amount must
// come back from storage exactly as it went in.
//
// A Decimal is an arbitrary-precision integer coefficient and a scale (the
// number of fraction digits it carries): 150000.00 is 15000000 at scale 2.
// Values are immutable, so copying one is safe; the zero value is 0. Compare
// values with Cmp or Equal, not ==, because 0.3 and 0.30 are equal numbers
// with different scales.
//
// Parse bounds what it accepts (MaxIntegerDigits, MaxScale, MaxInputLength)
// so that hostile input such as 1e999999999 is refused at once instead of
// costing memory and time. Arithmetic on parsed values is exact and
// unbounded; the few places where a result must fit in an int64 (Scaled)
// report whether it does.
package decimal

import (
	"math/big"
	"strconv"
	"strings"

	"counsel/domain"
)

// Limits on what Parse accepts.
const (
	// MaxIntegerDigits is the largest number of digits before the point:
	// every parsed value is below 10^30 in magnitude.
	MaxIntegerDigits = 30
	// MaxScale is the largest number of fraction digits a parsed value
	// keeps. Trailing zeros beyond it are dropped (they do not change the
	// value); other digits beyond it are refused.
	MaxScale = 30
	// MaxInputLength is the longest text Parse looks at, in bytes.
	MaxInputLength = 128
)

// Decimal is an exact decimal number: coef / 10^scale. The zero value is 0.
type Decimal struct {
	// coef is never mutated after the Decimal is built; nil means 0.
	coef  *big.Int
	scale int32 // >= 0
}

// New returns unscaled / 10^scale: New(1234, 2) is 12.34. A negative scale
// multiplies: New(5, -3) is 5000.
func New(unscaled int64, scale int32) Decimal {
	c := big.NewInt(unscaled)
	if scale < 0 {
		c.Mul(c, pow10(-scale))
		scale = 0
	}
	return Decimal{coef: c, scale: scale}
}

// FromInt returns the integer v.
func FromInt(v int64) Decimal { return New(v, 0) }

// FromScaled is the inverse of Scaled: v / 10^places, carrying places
// fraction digits. FromScaled(1999, 2) is 19.99.
func FromScaled(v int64, places int32) Decimal { return New(v, places) }

// MustParse is Parse for constants and tests; it panics on an error.
func MustParse(s string) Decimal {
	d, err := Parse(s)
	if err != nil {
		panic("decimal.MustParse(" + s + "): " + err.Error())
	}
	return d
}

// Parse reads a JSON number literal: an optional minus sign, an integer
// part without leading zeros, an optional fraction and an optional
// exponent ("12", "-0.5", "1e3", "150000.00", "2.5E-1"). The scale of the
// result is the number of fraction digits written, adjusted by the
// exponent, so "150000.00" carries 2 places and "1e3" none.
//
// Anything else (NaN, Inf, "+1", ".5", "1.", "0x10", spaces) and values
// beyond the limits above are an EINVALID *domain.Error. Its message never
// repeats the input, which may be hostile; callers add the field name.
func Parse(s string) (Decimal, error) {
	if len(s) == 0 || len(s) > MaxInputLength {
		return Decimal{}, errSyntax()
	}
	i := 0
	neg := false
	if s[i] == '-' {
		neg = true
		i++
	}
	// Integer part: "0" or a non-zero digit followed by digits.
	start := i
	if i < len(s) && s[i] == '0' {
		i++
	} else {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i == start {
		return Decimal{}, errSyntax()
	}
	intPart := s[start:i]
	fracPart := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == fs {
			return Decimal{}, errSyntax()
		}
		fracPart = s[fs:i]
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		expNeg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && isDigit(s[i]) {
			// Stop accumulating past a million, far out of range
			// already, so a long exponent cannot overflow int64.
			if exp < 1_000_000 {
				exp = exp*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == es {
			return Decimal{}, errSyntax()
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(s) {
		return Decimal{}, errSyntax()
	}

	digits := strings.TrimLeft(intPart+fracPart, "0")
	scale := int64(len(fracPart)) - exp
	if digits == "" {
		// Zero: keep the written places, within the limit.
		return Decimal{scale: int32(min(max(scale, 0), MaxScale))}, nil
	}
	for scale > MaxScale && strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		scale--
	}
	if scale > MaxScale || int64(len(digits))-scale > MaxIntegerDigits {
		return Decimal{}, domain.Errorf(domain.EINVALID,
			"number out of range: at most %d digits before and %d after the point", MaxIntegerDigits, MaxScale)
	}
	if scale < 0 {
		digits += strings.Repeat("0", int(-scale))
		scale = 0
	}
	c, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return Decimal{}, errSyntax()
	}
	if neg {
		c.Neg(c)
	}
	return Decimal{coef: c, scale: int32(scale)}, nil
}

func errSyntax() error {
	return domain.Errorf(domain.EINVALID, "not a decimal number")
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// pow10 returns a new 10^n for n >= 0.
func pow10(n int32) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// c returns the coefficient, never nil. The result must not be mutated.
func (d Decimal) c() *big.Int {
	if d.coef == nil {
		return new(big.Int)
	}
	return d.coef
}

// rescaled returns the coefficient of d at a scale >= d.scale.
func (d Decimal) rescaled(scale int32) *big.Int {
	if scale == d.scale {
		return d.c()
	}
	return new(big.Int).Mul(d.c(), pow10(scale-d.scale))
}

// Places is the number of fraction digits d carries: 2 for 150000.00,
// 0 for 1e3.
func (d Decimal) Places() int32 { return d.scale }

// Sign returns -1, 0 or +1.
func (d Decimal) Sign() int { return d.c().Sign() }

// IsZero reports whether d is 0 (at any scale).
func (d Decimal) IsZero() bool { return d.Sign() == 0 }

// Cmp compares values: -1 if d < e, 0 if equal (0.3 equals 0.30), +1 if
// d > e.
func (d Decimal) Cmp(e Decimal) int {
	s := max(d.scale, e.scale)
	return d.rescaled(s).Cmp(e.rescaled(s))
}

// Equal reports whether d and e are the same number.
func (d Decimal) Equal(e Decimal) bool { return d.Cmp(e) == 0 }

// Neg returns -d.
func (d Decimal) Neg() Decimal {
	return Decimal{coef: new(big.Int).Neg(d.c()), scale: d.scale}
}

// Abs returns |d|.
func (d Decimal) Abs() Decimal {
	return Decimal{coef: new(big.Int).Abs(d.c()), scale: d.scale}
}

// Add returns d + e, exactly, carrying the larger of the two scales.
func (d Decimal) Add(e Decimal) Decimal {
	s := max(d.scale, e.scale)
	return Decimal{coef: new(big.Int).Add(d.rescaled(s), e.rescaled(s)), scale: s}
}

// Sub returns d - e, exactly, carrying the larger of the two scales.
func (d Decimal) Sub(e Decimal) Decimal {
	s := max(d.scale, e.scale)
	return Decimal{coef: new(big.Int).Sub(d.rescaled(s), e.rescaled(s)), scale: s}
}

// Mul returns d × e, exactly; the scale is the sum of both scales.
func (d Decimal) Mul(e Decimal) Decimal {
	return Decimal{coef: new(big.Int).Mul(d.c(), e.c()), scale: d.scale + e.scale}
}

// QuoRound returns d / e rounded half away from zero to places fraction
// digits (a negative places rounds to tens, hundreds, ...). The result
// carries max(places, 0) places. It panics if e is zero, like integer
// division; callers validate divisors first.
func (d Decimal) QuoRound(e Decimal, places int32) Decimal {
	if e.IsZero() {
		panic("decimal: division by zero")
	}
	// d/e × 10^places = D × 10^(se + places - sd) / E.
	num := new(big.Int).Set(d.c())
	den := new(big.Int).Set(e.c())
	if k := int64(e.scale) + int64(places) - int64(d.scale); k >= 0 {
		num.Mul(num, pow10(int32(k)))
	} else {
		den.Mul(den, pow10(int32(-k)))
	}
	return fromRounded(roundQuo(num, den), places)
}

// Round returns d rounded half away from zero to places fraction digits:
// 2.345 gives 2.35 and -2.345 gives -2.35 at 2 places. A negative places
// rounds to tens, hundreds, ... The result carries exactly max(places, 0)
// places, so New(3, 1).Round(2) is 0.30 with Places 2.
func (d Decimal) Round(places int32) Decimal {
	if places >= d.scale {
		return Decimal{coef: d.rescaled(places), scale: places}
	}
	q := roundQuo(new(big.Int).Set(d.c()), pow10(d.scale-places))
	return fromRounded(q, places)
}

// fromRounded builds q / 10^places, turning a negative places into a
// multiplication so the scale stays >= 0.
func fromRounded(q *big.Int, places int32) Decimal {
	if places < 0 {
		return Decimal{coef: q.Mul(q, pow10(-places))}
	}
	return Decimal{coef: q, scale: places}
}

// roundQuo returns num / den rounded half away from zero. It may reuse num.
func roundQuo(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	// |r| / |den| >= 1/2  <=>  2|r| >= |den|.
	r.Abs(r).Lsh(r, 1)
	if r.CmpAbs(den) >= 0 {
		if (num.Sign() < 0) != (den.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// Scaled returns d × 10^places as an int64 when that is a whole number in
// range, for storing cents as an SQLite INTEGER: 19.99 gives 1999 at 2
// places. It reports false when d has more significant places than asked
// for (19.995 at 2) or the result overflows; round first to store anyway.
func (d Decimal) Scaled(places int32) (int64, bool) {
	c := d.c()
	if c.Sign() == 0 {
		return 0, true
	}
	var v *big.Int
	if places >= d.scale {
		if int64(places)-int64(d.scale) > 19 {
			return 0, false // a non-zero value times 10^20 overflows
		}
		v = d.rescaled(places)
	} else {
		q, r := new(big.Int).QuoRem(c, pow10(d.scale-places), new(big.Int))
		if r.Sign() != 0 {
			return 0, false
		}
		v = q
	}
	if !v.IsInt64() {
		return 0, false
	}
	return v.Int64(), true
}

// String formats d canonically: no exponent, no trailing fraction zeros,
// no "-0" ("150000.00" gives "150000", "-0.50" gives "-0.5"). Parse reads
// it back to an equal value. Use StringFixed for a fixed number of places.
func (d Decimal) String() string {
	s := d.format()
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// StringFixed formats d rounded half away from zero to exactly places
// fraction digits: 0.3 gives "0.30" at 2 places. A negative places
// rounds to tens, hundreds, ... and prints no point.
func (d Decimal) StringFixed(places int32) string {
	if s, ok := d.fixedSmall(places); ok {
		return s
	}
	return d.Round(places).format()
}

// pow10s are the powers of ten an int64 holds.
var pow10s = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// fixedSmall is StringFixed in int64 arithmetic, for the coefficients of
// everyday money and ratios: every API answer formats several, and
// math/big costs about ten allocations each. It reports false where the
// value or the rescaling does not fit, and StringFixed falls back to big.
func (d Decimal) fixedSmall(places int32) (string, bool) {
	if places < 0 || (d.coef != nil && !d.coef.IsInt64()) {
		return "", false
	}
	var c int64
	if d.coef != nil {
		c = d.coef.Int64()
	}
	switch diff := int64(places) - int64(d.scale); {
	case diff >= 0:
		if diff >= int64(len(pow10s)) {
			return "", false
		}
		m := pow10s[diff]
		if c > 0 && c > (1<<63-1)/m || c < 0 && c < -(1<<63-1)/m {
			return "", false
		}
		c *= m
	default:
		if -diff >= int64(len(pow10s)) {
			return "", false
		}
		den := pow10s[-diff]
		q, r := c/den, c%den
		if r < 0 {
			r = -r
		}
		if 2*r >= den { // half away from zero; 2r < 2*10^18 cannot overflow
			if c < 0 {
				q--
			} else {
				q++
			}
		}
		c = q
	}
	var buf [48]byte
	return string(appendPoint(buf[:0], c, int(places))), true
}

// appendPoint appends c / 10^scale in plain decimal notation.
func appendPoint(b []byte, c int64, scale int) []byte {
	u := uint64(c)
	if c < 0 {
		b = append(b, '-')
		u = -u // two's complement: right for math.MinInt64 too
	}
	var digits [20]byte
	ds := strconv.AppendUint(digits[:0], u, 10)
	switch {
	case scale <= 0:
		return append(b, ds...)
	case len(ds) <= scale: // 0.0ddd
		b = append(b, '0', '.')
		for pad := scale - len(ds); pad > 0; pad-- {
			b = append(b, '0')
		}
		return append(b, ds...)
	}
	cut := len(ds) - scale
	b = append(append(b, ds[:cut]...), '.')
	return append(b, ds[cut:]...)
}

// format prints the coefficient with the point at the scale.
func (d Decimal) format() string {
	if d.coef == nil || d.coef.IsInt64() {
		var buf [48]byte
		var c int64
		if d.coef != nil {
			c = d.coef.Int64()
		}
		return string(appendPoint(buf[:0], c, int(d.scale)))
	}
	return d.formatBig()
}

// formatBig is format for any coefficient.
func (d Decimal) formatBig() string {
	c := d.c()
	digits := new(big.Int).Abs(c).String()
	if d.scale > 0 {
		if pad := int(d.scale) + 1 - len(digits); pad > 0 {
			digits = strings.Repeat("0", pad) + digits
		}
		cut := len(digits) - int(d.scale)
		digits = digits[:cut] + "." + digits[cut:]
	}
	if c.Sign() < 0 {
		return "-" + digits
	}
	return digits
}
