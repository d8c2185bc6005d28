package contract

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/decimal"
)

func ptr[T any](v T) *T { return &v }

func date(s string) *time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func valid() Contract {
	return Contract{
		Name:      "Master services",
		Type:      ServiceAgreement,
		Status:    Draft,
		StartDate: date("2026-01-01"),
		EndDate:   date("2026-12-31"),
		Amount:    ptr(decimal.MustParse("150000.00")),
		Currency:  "AUD",
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(c *Contract)
		field  string // "" for a valid contract
		msg    string
	}{
		{"valid", func(c *Contract) {}, "", ""},
		{"minimal", func(c *Contract) { *c = Contract{Name: "x", Type: Other, Status: Draft} }, "", ""},
		{"same start and end", func(c *Contract) { c.EndDate = c.StartDate }, "", ""},
		{"zero amount", func(c *Contract) { c.Amount = ptr(decimal.FromInt(0)) }, "", ""},
		{"no currency", func(c *Contract) { c.Currency = "" }, "", ""},
		{"lower-case currency", func(c *Contract) { c.Currency = "eur" }, "", ""},
		{"name of 200 characters", func(c *Contract) { c.Name = strings.Repeat("é", 200) }, "", ""},
		{"largest amount", func(c *Contract) { c.Amount = ptr(decimal.MustParse("999999999999999.99")) }, "", ""},
		{"missing name", func(c *Contract) { c.Name = "" }, "contractName", "contractName is required"},
		{"blank name", func(c *Contract) { c.Name = " \t\n " }, "contractName", "contractName is required"},
		{"long name", func(c *Contract) { c.Name = strings.Repeat("a", 201) }, "contractName", "contractName must be at most 200 characters"},
		{"end before start", func(c *Contract) { c.EndDate = date("2025-12-31") }, "endDate", "endDate must not be before startDate"},
		{"negative amount", func(c *Contract) { c.Amount = ptr(decimal.MustParse("-0.01")) }, "amount", "amount must not be negative"},
		{"huge amount", func(c *Contract) { c.Amount = ptr(decimal.MustParse("1e15")) }, "amount", "amount must be less than 1000000000000000"},
		{"rounds up to the limit", func(c *Contract) { c.Amount = ptr(decimal.MustParse("999999999999999.995")) }, "amount", "amount must be less than 1000000000000000"},
		{"unknown currency", func(c *Contract) { c.Currency = "ABC" }, "currency", "currency must be a 3-letter ISO 4217 code"},
		{"withdrawn currency", func(c *Contract) { c.Currency = "HRK" }, "currency", "currency must be a 3-letter ISO 4217 code"},
		{"long currency", func(c *Contract) { c.Currency = "AUDX" }, "currency", "currency must be a 3-letter ISO 4217 code"},
		{"no currency code", func(c *Contract) { c.Currency = "XXX" }, "currency", "currency must be a 3-letter ISO 4217 code"},
		{"no type", func(c *Contract) { c.Type = 0 }, "contractType", "contractType must be one of ServiceAgreement (1), EmploymentContract (2), NonDisclosureAgreement (3), PartnershipAgreement (4), LicenseAgreement (5), Other (6)"},
		{"no status", func(c *Contract) { c.Status = 0 }, "status", "status must be one of Draft (1), ContractDesign (2), WaitingForClientSignature (3), Signed (4), Declined (5), Expired (6), Terminated (7), Archived (8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			c := valid()
			tt.change(&c)
			err := c.Validate()
			if tt.field == "" {
				is.NoErr(err) // valid
				return
			}
			is.Equal(domain.ErrorCode(err), domain.EINVALID) // 400
			var e *domain.Error
			is.True(asError(err, &e))                      // a *domain.Error
			is.Equal(len(e.Fields), 1)                     // one field
			is.Equal(e.Fields[tt.field], []string{tt.msg}) // field message
		})
	}
}

func TestValidateSeveralFields(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c := Contract{Status: Draft, Type: Other, Currency: "zz", Amount: ptr(decimal.FromInt(-1))}
	var e *domain.Error
	is.True(asError(c.Validate(), &e)) // invalid
	is.Equal(len(e.Fields), 3)         // contractName, amount, currency
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	amount := decimal.MustParse("12.345")
	c := Contract{Name: "  Lease \n", Currency: " aud ", Amount: &amount}
	c.Normalize()
	is.Equal(c.Name, "Lease")                  // trimmed
	is.Equal(c.Currency, "AUD")                // upper-cased
	is.Equal(c.Amount.StringFixed(2), "12.35") // rounded half away from zero
	is.Equal(c.Amount.Places(), int32(2))      // two places kept
	is.Equal(amount.String(), "12.345")        // the caller's decimal is untouched
	is.Equal(c.Type, Other)                    // a missing type becomes Other
	c.Type = LicenseAgreement
	c.Normalize()
	is.Equal(c.Type, LicenseAgreement) // a type is kept

	neg := decimal.MustParse("-0.005")
	c.Amount = &neg
	c.Normalize()
	is.Equal(c.Amount.StringFixed(2), "-0.01") // negative rounds away from zero, then Validate refuses it
}

func TestIsCurrencyCode(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	n := len(strings.Fields(currencyCodes))
	is.Equal(len(currencyCodes), 4*n-1) // codes are three letters apart from single spaces
	for _, code := range []string{"AUD", "USD", "EUR", "GBP", "NZD", "JPY", "XCG", "ZWG", "AED", "ZAR"} {
		is.True(IsCurrencyCode(code)) // active code
	}
	for _, code := range []string{"", "aud", "AU", "AUDD", "UD ", "D A", "ANG", "XTS", "XXX", "A1D", "ÄUD"} {
		is.True(!IsCurrencyCode(code)) // not an active code
	}
}

func TestChangeStatus(t *testing.T) {
	t.Parallel()
	t.Run("provider signs", func(t *testing.T) {
		is := is.New(t)
		c := Contract{Status: WaitingForClientSignature, DigitalContractID: "tpl"}
		ch, err := c.ChangeStatus(Signed, ActorSigningProvider)
		is.NoErr(err)                                                                                                                        // allowed
		is.Equal(ch, StatusChange{From: WaitingForClientSignature, To: Signed, Actor: ActorSigningProvider, Changed: true, SignedNow: true}) // what changed
		is.Equal(c.Status, Signed)                                                                                                           // moved
		is.True(c.IsSigned)                                                                                                                  // signed

		ch, err = c.ChangeStatus(Signed, ActorSigningProvider)
		is.NoErr(err)        // a repeated webhook is fine
		is.True(!ch.Changed) // and changes nothing
		is.True(!ch.SignedNow)

		ch, err = c.ChangeStatus(Expired, ActorSystem)
		is.NoErr(err)       // the sweep expires it
		is.True(ch.Changed) // changed
		is.True(c.IsSigned) // still signed
	})
	t.Run("refused leaves the contract alone", func(t *testing.T) {
		is := is.New(t)
		c := Contract{Status: Signed, DigitalContractID: "tpl", IsSigned: true}
		before := c
		ch, err := c.ChangeStatus(Archived, ActorUser)
		is.Equal(domain.ErrorCode(err), domain.ECONFLICT) // 409
		is.Equal(ch.From, Signed)                         // reports from
		is.Equal(ch.To, Archived)                         // and to
		is.True(!ch.Changed)                              // nothing changed
		is.Equal(c, before)                               // contract untouched
	})
	t.Run("non-digital user marks signed", func(t *testing.T) {
		is := is.New(t)
		c := Contract{Status: Draft}
		ch, err := c.ChangeStatus(Signed, ActorUser)
		is.NoErr(err)         // any change for a paper contract
		is.True(ch.SignedNow) // recorded as signed
		_, err = c.ChangeStatus(Archived, ActorUser)
		is.NoErr(err)       // may archive
		is.True(c.IsSigned) // stays signed
	})
}

func TestSubmitForSigning(t *testing.T) {
	t.Parallel()
	t.Run("from draft", func(t *testing.T) {
		is := is.New(t)
		c := Contract{Status: Draft}
		ch, err := c.SubmitForSigning("tpl-1", "sub-1")
		is.NoErr(err)                                                                                           // allowed
		is.Equal(ch, StatusChange{From: Draft, To: WaitingForClientSignature, Actor: ActorUser, Changed: true}) // change
		is.True(c.IsDigital())                                                                                  // now digital
		is.Equal(c.DigitalContractID, "tpl-1")                                                                  // template id
		is.Equal(c.DigitalContractSubmissionID, "sub-1")                                                        // submission id
		is.Equal(c.Status, WaitingForClientSignature)                                                           // waiting
	})
	t.Run("resubmit after decline keeps the template", func(t *testing.T) {
		is := is.New(t)
		c := Contract{Status: Declined, DigitalContractID: "tpl-1", DigitalContractSubmissionID: "sub-1"}
		_, err := c.SubmitForSigning("", "sub-2")
		is.NoErr(err)                                    // allowed
		is.Equal(c.DigitalContractID, "tpl-1")           // kept
		is.Equal(c.DigitalContractSubmissionID, "sub-2") // replaced
	})
	t.Run("not from signed", func(t *testing.T) {
		is := is.New(t)
		c := Contract{Status: Signed, DigitalContractID: "tpl-1", IsSigned: true}
		before := c
		_, err := c.SubmitForSigning("tpl-2", "sub-2")
		is.Equal(domain.ErrorCode(err), domain.ECONFLICT)                                                                                                                // 409
		is.Equal(domain.ErrorMessage(err), "cannot submit a contract for signing while it is Signed: only Draft, ContractDesign or Declined contracts can be submitted") // names the status
		is.Equal(c, before)                                                                                                                                              // untouched
	})
	t.Run("needs ids", func(t *testing.T) {
		is := is.New(t)
		c := Contract{Status: Draft}
		_, err := c.SubmitForSigning("", "sub")
		is.Equal(domain.ErrorCode(err), domain.EINVALID) // no template
		_, err = c.SubmitForSigning("tpl", "")
		is.Equal(domain.ErrorCode(err), domain.EINVALID) // no submission
		is.Equal(c, Contract{Status: Draft})             // untouched
	})
}

func TestShouldExpire(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		status Status
		end    *time.Time
		want   bool
	}{
		{"signed, ended", Signed, date("2026-05-31"), true},
		{"signed, ended a second ago", Signed, ptr(now.Add(-time.Second)), true},
		{"signed, ends now", Signed, ptr(now), false},
		{"signed, ends later", Signed, date("2026-06-02"), false},
		{"signed, no end", Signed, nil, false},
		{"draft, ended", Draft, date("2026-05-31"), false},
		{"waiting, ended", WaitingForClientSignature, date("2026-05-31"), false},
		{"expired", Expired, date("2026-05-31"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(ShouldExpire(Contract{Status: tt.status, EndDate: tt.end}, now), tt.want) // expiry
		})
	}
}

// FuzzTransitions drives random sequences of events through a contract and
// checks the invariants of the state machine after each one. Each event is
// two bytes: the kind (user, provider or system status change, submit for
// signing, delete) and its argument (the target status, including values
// outside the enumeration). The first byte chooses whether the contract
// starts digital.
func FuzzTransitions(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{1, 0, 1, 0, 0})                            // digital: Draft -> ContractDesign -> Draft
	f.Add([]byte{0, 3, 0, 1, 3, 2, 3})                      // submit, provider signs, sweep expires
	f.Add([]byte{0, 3, 0, 1, 4, 3, 0, 0, 0})                // submit, provider declines, resubmit, user to Draft
	f.Add([]byte{0, 0, 7, 0, 6, 0, 0, 3, 1})                // paper: Archived, Terminated, Draft, submit
	f.Add([]byte{1, 4, 0, 0, 1, 4, 0})                      // delete a Draft; delete from ContractDesign
	f.Add([]byte{0, 3, 0, 1, 3, 0, 7, 0, 6, 0, 5, 1, 3, 1}) // signed digital: try Archived, Terminated, Expired
	f.Add([]byte{0, 0, 9, 0, 255, 1, 8, 2, 3})              // out-of-range statuses
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		c := Contract{Name: "fuzz", Type: Other, Status: Draft}
		if data[0]&1 == 1 {
			c.DigitalContractID = "tpl-0"
		}
		for i := 1; i+1 < len(data); i += 2 {
			op, arg := data[i]%5, data[i+1]
			prev := c
			switch op {
			case 0, 1, 2:
				actor := Actor(op + 1)
				to := Status(arg % 10) // 0 and 9 are not statuses
				ch, err := c.ChangeStatus(to, actor)
				want := CheckTransition(prev.Status, to, actor, prev.IsDigital())
				if (err == nil) != (want == nil) {
					t.Fatalf("event %d: ChangeStatus(%s, %s) = %v, CheckTransition says %v", i, to, actor, err, want)
				}
				if !prev.IsDigital() && actor == ActorUser && to.Valid() && err != nil {
					t.Fatalf("event %d: a user may change a non-digital contract freely: %v", i, err)
				}
				if err != nil {
					if c != prev {
						t.Fatalf("event %d: refused change altered the contract: %+v -> %+v", i, prev, c)
					}
					break
				}
				if c.Status != to || ch.Changed != (prev.Status != to) || ch.From != prev.Status {
					t.Fatalf("event %d: change %+v from %s left status %s", i, ch, prev.Status, c.Status)
				}
				if actor == ActorSigningProvider && to == Signed && !c.IsSigned {
					t.Fatalf("event %d: provider Signed but IsSigned is false", i)
				}
			case 3:
				tpl := ""
				if arg%3 != 0 {
					tpl = fmt.Sprintf("tpl-%d", i)
				}
				_, err := c.SubmitForSigning(tpl, fmt.Sprintf("sub-%d", i))
				canSubmit := prev.Status == Draft || prev.Status == ContractDesign || prev.Status == Declined
				if err == nil {
					if !canSubmit || !c.IsDigital() || c.Status != WaitingForClientSignature {
						t.Fatalf("event %d: submitted from %s: %+v", i, prev.Status, c)
					}
				} else if c != prev {
					t.Fatalf("event %d: failed submit altered the contract", i)
				} else if canSubmit && (tpl != "" || prev.IsDigital()) {
					t.Fatalf("event %d: submit from %s refused: %v", i, prev.Status, err)
				}
			case 4:
				err := CheckDelete(c.Status)
				if (err == nil) != (c.Status == Draft) {
					t.Fatalf("event %d: delete from %s: %v", i, c.Status, err)
				}
				if err == nil {
					return // deleted: nothing more can happen to it
				}
			}
			if !c.Status.Valid() {
				t.Fatalf("event %d: status %s is not one of the 8", i, c.Status)
			}
			if prev.IsDigital() && prev.Status == Signed && c.Status != Signed && c.Status != Expired {
				t.Fatalf("event %d: digital contract left Signed for %s", i, c.Status)
			}
			if c.IsDigital() && (c.Status == Terminated || c.Status == Archived) {
				t.Fatalf("event %d: digital contract became %s", i, c.Status)
			}
			if prev.IsDigital() && !c.IsDigital() {
				t.Fatalf("event %d: contract stopped being digital", i)
			}
		}
	})
}
