package contract

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/decimal"
)

func TestApply(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		digital bool
		edit    Edit
		fields  []string
		status  Status // expected status afterwards
		code    string // expected error code, "" for none
	}{
		{"nothing", false, Edit{}, nil, Draft, ""},
		{"same values", false, Edit{Name: ptr("Master services"), Amount: Some(decimal.MustParse("150000"))}, nil, Draft, ""},
		{"name and amount", false, Edit{Name: ptr(" Lease "), Amount: Some(decimal.MustParse("1.005"))}, []string{"contractName", "amount"}, Draft, ""},
		{"clear nullable", false, Edit{StartDate: Optional[time.Time]{Set: true}, Amount: Optional[decimal.Decimal]{Set: true}}, []string{"startDate", "amount"}, Draft, ""},
		{"link matter", false, Edit{MatterID: Some(int64(7))}, []string{"matterId"}, Draft, ""},
		{"every field", false, Edit{Name: ptr("x"), Description: ptr("d"), Type: ptr(Other), StartDate: Some(at), EndDate: Some(at.Add(time.Hour)),
			Amount: Some(decimal.FromInt(1)), Currency: ptr("eur"), Comments: ptr("c"), MatterID: Some(int64(1)), ClientID: Some(int64(2)), ProjectID: Some(int64(3))},
			[]string{"contractName", "contractDescription", "contractType", "startDate", "endDate", "amount", "currency", "comments", "matterId", "clientId", "projectId"}, Draft, ""},
		{"status only", false, Edit{Status: ptr(Archived)}, nil, Archived, ""},
		{"status and field", false, Edit{Status: ptr(Signed), Comments: ptr("paper copy")}, []string{"comments"}, Signed, ""},
		{"digital to design", true, Edit{Status: ptr(ContractDesign)}, nil, ContractDesign, ""},
		{"digital to signed refused", true, Edit{Status: ptr(Signed), Comments: ptr("x")}, nil, Draft, domain.ECONFLICT},
		{"blank name", false, Edit{Name: ptr("  ")}, nil, Draft, domain.EINVALID},
		{"end before start", false, Edit{EndDate: Some(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))}, nil, Draft, domain.EINVALID},
		{"invalid beats illegal status", true, Edit{Name: ptr(""), Status: ptr(Archived)}, nil, Draft, domain.EINVALID},
		{"non-positive id", false, Edit{ClientID: Some(int64(0))}, nil, Draft, domain.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			c := valid()
			if tt.digital {
				c.DigitalContractID = "tpl"
			}
			before := c
			res, err := c.Apply(tt.edit)
			is.Equal(domain.ErrorCode(err), tt.code) // error code
			if tt.code != "" {
				is.Equal(c, before) // refused: untouched
				return
			}
			is.Equal(res.Fields, tt.fields)                                   // changed fields
			is.Equal(c.Status, tt.status)                                     // status
			is.Equal(res.Changed(), len(tt.fields) > 0 || tt.status != Draft) // changed
			is.Equal(res.Status.Changed, tt.status != Draft)                  // status change reported
			entries := 0
			if len(tt.fields) > 0 {
				entries++ // updated
			}
			if tt.status != Draft {
				entries++ // statusChanged
			}
			is.Equal(len(res.Audit(9, at)), entries) // one entry per kind of change
		})
	}
}

func TestApplyNormalizes(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	c := valid()
	_, err := c.Apply(Edit{Name: ptr("  Lease  "), Currency: ptr(" nzd"), Amount: Some(decimal.MustParse("0.105"))})
	is.NoErr(err)                             // valid
	is.Equal(c.Name, "Lease")                 // trimmed
	is.Equal(c.Currency, "NZD")               // upper-cased
	is.Equal(c.Amount.StringFixed(2), "0.11") // rounded half away from zero
}

func TestEditAudit(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	res := EditResult{Fields: []string{"contractName", "amount"}, Status: StatusChange{From: Draft, To: Signed, Actor: ActorUser, Changed: true}}
	got := res.Audit(42, at)
	is.Equal(got, []AuditEntry{
		{Action: ActionUpdated, Actor: ActorUser, ActorUserID: 42, At: at, Details: "changed contractName, amount"},
		{Action: ActionStatusChanged, From: Draft, To: Signed, Actor: ActorUser, ActorUserID: 42, At: at},
	}) // updated, then statusChanged
	is.Equal(EditResult{}.Audit(42, at), []AuditEntry(nil)) // nothing changed: no entries

	sys := StatusChange{From: Signed, To: Expired, Actor: ActorSystem, Changed: true}.Audit(ActionStatusChanged, 42, at, "ended")
	is.Equal(sys[0].ActorUserID, int64(0)) // the system is no user
	is.Equal(sys[0].Details, "ended")      // details kept
}

func TestDiffComparesValues(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	a, b := valid(), valid()
	b.Amount = ptr(decimal.MustParse("150000.000"))
	loc := time.FixedZone("AEST", 10*3600)
	b.StartDate = ptr(a.StartDate.In(loc))
	b.MatterID, a.MatterID = ptr(int64(3)), ptr(int64(3))
	is.Equal(Diff(a, b), []string(nil)) // equal numbers, instants and ids are no change
}
