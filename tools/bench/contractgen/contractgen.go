// Package contractgen makes reproducible contracts for benchmarks and
// tests, in two shapes a firm's data may take:
//
//   - Legal: names of three words and a number, descriptions of about
//     twelve words, both from a vocabulary of thirty legal words (so one
//     word is in about 40% of contracts); statuses skewed toward Draft and
//     Signed; start dates over five years; amounts up to a million; every
//     type.
//   - Archive: an old practice's archive, 60% Archived, text from a
//     vocabulary of 2,000 words with a Zipf-like skew (the commonest word
//     is in about a third of contracts), a long tail of client names, and
//     most contracts linked to a matter.
//   - Mixed: a firm's everyday book: names of a counterparty (some with
//     accents and capitals) and a kind of contract, descriptions from a
//     vocabulary of about three hundred words drawn evenly (a word is in
//     about 5% of contracts, "services", also a kind, in about 10%); statuses and types
//     spread evenly; dates over ten years, some open-ended; links to
//     matters, clients and projects.
//
// Each shape names a common word, a rare word and a status, so a
// benchmark can ask the same questions of both.
package contractgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"counsel/domain/contract"
	"counsel/domain/decimal"
)

// Shape is a kind of data: how to make its contracts and what to ask.
type Shape struct {
	Name string
	// Common is a word in about 30-40% of contracts; Rare one in a few
	// dozen; Status the status most contracts have.
	Common, Rare string
	Status       contract.Status
	make         func(rnd *rand.Rand, i int, now time.Time) contract.Contract
}

// Shapes are the shapes this package makes.
func Shapes() []Shape { return []Shape{Legal, Archive, Mixed} }

// legalWords is the legal shape's vocabulary: thirty words.
var legalWords = strings.Fields(`agreement party parties clause term termination liability indemnity confidential
	standard service supply licence lease employment warranty payment schedule notice breach governing law jurisdiction
	dispute arbitration amendment assignment obligation remedy consent`)

// Legal is the shape.
var Legal = Shape{Name: "legal", Common: "standard", Rare: "escrow", Status: contract.Signed, make: legal}

// Archive is a second shape, unlike the first.
var Archive = Shape{Name: "archive", Common: archiveWord(0), Rare: archiveWord(1500), Status: contract.Archived, make: archive}

// Mixed is a third shape: a medium vocabulary and an even spread.
var Mixed = Shape{Name: "mixed", Common: "services", Rare: "salvage", Status: contract.Draft, make: mixed}

// ByName returns the shape named name, and false if there is none.
func ByName(name string) (Shape, bool) {
	for _, s := range Shapes() {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}

// syllables make the archive shape's words.
var syllables = strings.Fields("ba del fi gor ka lun mi nor pa quel ro sa tin ur va wen xo yel zar ost")

// archiveWord is the k-th word of the archive vocabulary (k < 8000).
func archiveWord(k int) string {
	return syllables[k%20] + syllables[k/20%20] + syllables[k/400%20]
}

// Make returns n contracts of shape s, the same ones for the same seed.
// now bounds the dates: Signed contracts end after it, so an expiry
// sweep does not change them under a benchmark.
func (s Shape) Make(n int, seed uint64, now time.Time) []contract.Contract {
	rnd := rand.New(rand.NewPCG(seed, 17))
	cs := make([]contract.Contract, n)
	for i := range cs {
		cs[i] = s.make(rnd, i, now)
		cs[i].UUID = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
	}
	return cs
}

func pick(rnd *rand.Rand, words []string) string { return words[rnd.IntN(len(words))] }

func words(rnd *rand.Rand, n int, word func() string) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = word()
	}
	return strings.Join(ws, " ")
}

// legalStatus: Draft 35%, Signed 35%, the other six 5% each.
func legalStatus(rnd *rand.Rand) contract.Status {
	switch r := rnd.IntN(100); {
	case r < 35:
		return contract.Draft
	case r < 70:
		return contract.Signed
	default:
		return []contract.Status{2, 3, 5, 6, 7, 8}[(r-70)/5]
	}
}

func legal(rnd *rand.Rand, i int, now time.Time) contract.Contract {
	w := func() string { return pick(rnd, legalWords) }
	c := contract.Contract{
		Name:        fmt.Sprintf("%s %s %s %d", title(w()), w(), w(), 1+rnd.IntN(99999)),
		Description: words(rnd, 10+rnd.IntN(5), w),
		Type:        contract.Type(1 + rnd.IntN(6)),
		Status:      legalStatus(rnd),
		Currency:    "AUD",
	}
	if rnd.IntN(4) == 0 {
		c.Comments = words(rnd, 3+rnd.IntN(4), w)
	}
	if rnd.IntN(500) == 0 {
		c.Comments += " held in escrow"
	}
	dates(rnd, &c, now, 5)
	if rnd.IntN(10) > 0 {
		a := decimal.New(rnd.Int64N(100_000_000+1), 2) // up to a million
		c.Amount = &a
	}
	if rnd.IntN(2) == 0 {
		m := int64(1 + rnd.IntN(5000))
		c.MatterID = &m
	}
	if rnd.IntN(5) == 0 {
		c.DigitalContractID = fmt.Sprintf("tpl-%d", i)
	}
	stamps(rnd, &c, i, now)
	return c
}

// zipf draws word numbers 0..1999 with P(k) ∝ 1/(k+1)^0.6.
type zipf struct{ cdf []float64 }

var archiveZipf = func() zipf {
	z := zipf{cdf: make([]float64, 2000)}
	sum := 0.0
	for k := range z.cdf {
		sum += 1 / math.Pow(float64(k+1), 0.6)
		z.cdf[k] = sum
	}
	for k := range z.cdf {
		z.cdf[k] /= sum
	}
	return z
}()

func (z zipf) draw(rnd *rand.Rand) int {
	u := rnd.Float64()
	lo, hi := 0, len(z.cdf)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if z.cdf[mid] < u {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

func archive(rnd *rand.Rand, i int, now time.Time) contract.Contract {
	w := func() string { return archiveWord(archiveZipf.draw(rnd)) }
	st := contract.Archived
	if r := rnd.IntN(100); r >= 60 {
		st = contract.Status(1 + (r-60)%7)
	}
	c := contract.Contract{
		Name:        fmt.Sprintf("Client%d %s", rnd.IntN(20000), w()),
		Description: words(rnd, 4+rnd.IntN(30), w),
		Type:        contract.Type(1 + rnd.IntN(6)),
		Status:      st,
		Currency:    []string{"AUD", "NZD", "USD", "EUR"}[rnd.IntN(4)],
		IsSigned:    st == contract.Archived && rnd.IntN(3) > 0,
	}
	if rnd.IntN(3) == 0 {
		c.Comments = words(rnd, 1+rnd.IntN(8), w)
	}
	dates(rnd, &c, now, 15)
	if rnd.IntN(3) > 0 {
		a := decimal.New(rnd.Int64N(100_000_000+1), 2)
		c.Amount = &a
	}
	if rnd.IntN(10) > 1 {
		m := int64(1 + rnd.IntN(20000))
		c.MatterID = &m
	}
	stamps(rnd, &c, i, now)
	return c
}

// dates spreads start dates over the years before now; a tenth have none.
func dates(rnd *rand.Rand, c *contract.Contract, now time.Time, years int) {
	c.IsSigned = c.IsSigned || c.Status == contract.Signed || c.Status == contract.Expired
	if rnd.IntN(10) == 0 {
		return
	}
	s := now.AddDate(-years, 0, 0).AddDate(0, 0, rnd.IntN(365*years)).Truncate(24 * time.Hour)
	e := s.AddDate(0, 1+rnd.IntN(48), 0)
	if c.Status == contract.Signed && !e.After(now) {
		e = now.AddDate(0, 1+rnd.IntN(36), 0).Truncate(24 * time.Hour)
	}
	c.StartDate, c.EndDate = &s, &e
}

// stamps sets the creation and last change times, before now.
func stamps(rnd *rand.Rand, c *contract.Contract, i int, now time.Time) {
	c.CreatedAt = now.AddDate(-3, 0, 0).Add(time.Duration(i) * 15 * time.Minute).UTC()
	if c.CreatedAt.After(now) {
		c.CreatedAt = now
	}
	c.UpdatedAt = c.CreatedAt.Add(time.Duration(rnd.Int64N(int64(now.Sub(c.CreatedAt)) + 1)))
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// mixedParties are the mixed shape's counterparties: ordinary names,
// some with letters outside ASCII.
var mixedParties = strings.Fields(`Acme Globex Initech Umbrella Stark Wayne Wonka Tyrell Cyberdyne Soylent Hooli Vandelay
	Müller Société Zürich Ørsted Łódź Peña Dubois Nakamura O'Brien Smith&Sons Kowalski Rossi García Björk Nguyen Okafor`)

// mixedKinds are the kinds of contract a name states.
var mixedKinds = strings.Fields(`Services Supply Lease Licence Employment Consulting Distribution Maintenance Loan Agency
	Franchise Partnership Settlement Guarantee Sponsorship Construction Charter Storage Hosting Support`)

// mixedVocabulary is about three hundred words: the kinds, then words
// made of two syllables; "salvage" is given to few contracts.
var mixedVocabulary = func() []string {
	ws := []string{"services", "supply", "premises", "delivery", "invoice", "renewal", "payment", "schedule", "party"}
	for k := 0; len(ws) < 300; k++ {
		ws = append(ws, syllables[k%20]+syllables[(k/20+k)%20]+"n")
	}
	return ws
}()

func mixed(rnd *rand.Rand, i int, now time.Time) contract.Contract {
	w := func() string { return pick(rnd, mixedVocabulary) }
	c := contract.Contract{
		Name:        fmt.Sprintf("%s %s Agreement %d", pick(rnd, mixedParties), pick(rnd, mixedKinds), 2000+rnd.IntN(30)),
		Description: words(rnd, 3+rnd.IntN(20), w),
		Type:        contract.Type(1 + rnd.IntN(6)),
		Status:      contract.Status(1 + rnd.IntN(8)),
		Currency:    []string{"AUD", "USD", "EUR", "GBP"}[rnd.IntN(4)],
	}
	if rnd.IntN(2) == 0 {
		c.Comments = words(rnd, 1+rnd.IntN(6), w)
	}
	if rnd.IntN(300) == 0 {
		c.Description += " salvage"
	}
	dates(rnd, &c, now, 10)
	if c.EndDate != nil && rnd.IntN(8) == 0 {
		c.EndDate = nil // open-ended
	}
	if rnd.IntN(5) > 0 {
		a := decimal.New(rnd.Int64N(5_000_000_00+1), 2)
		c.Amount = &a
	}
	for _, p := range []**int64{&c.MatterID, &c.ClientID, &c.ProjectID} {
		if rnd.IntN(3) == 0 {
			id := int64(1 + rnd.IntN(300))
			*p = &id
		}
	}
	if rnd.IntN(6) == 0 {
		c.DigitalContractID = fmt.Sprintf("tpl-%d", i)
	}
	stamps(rnd, &c, i, now)
	return c
}
