package porttest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/contract"
	"counsel/domain/decimal"
)

func created(uid int64, at time.Time) []contract.AuditEntry {
	return []contract.AuditEntry{{Action: contract.ActionCreated, To: contract.Draft, Actor: contract.ActorUser, ActorUserID: uid, At: at}}
}

// ContractsSuite covers one contract's life: create, read, update with
// its audit trail, documents, signing lookups, expiry and delete.
func ContractsSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	uid := bootstrap(t, s)
	amount := decimal.MustParse("1234.56")
	start, end := T0.AddDate(0, -1, 0), T0.AddDate(0, 1, 0)
	matter := int64(42)
	c, err := s.Contracts.CreateContract(ctx, contract.Contract{UUID: "0b9a7f1e-5a4c-4a7e-9d3b-2f8f6c1d0e11", Name: "Lease", Description: "Office lease",
		Type: contract.LicenseAgreement, Status: contract.Draft, StartDate: &start, EndDate: &end, Amount: &amount, Currency: "AUD",
		Comments: "note", MatterID: &matter, CreatedAt: T0, UpdatedAt: T0}, created(uid, T0))
	is.NoErr(err)
	is.True(c.ID > 0)
	got, err := s.Contracts.Contract(ctx, c.ID)
	is.NoErr(err)
	is.Equal(got.Name, "Lease")
	is.Equal(got.Amount.String(), "1234.56")
	is.True(got.StartDate.Equal(start) && got.EndDate.Equal(end) && got.CreatedAt.Equal(T0))
	is.Equal(*got.MatterID, matter)
	is.True(got.ClientID == nil)
	_, err = s.Contracts.CreateContract(ctx, contract.Contract{UUID: c.UUID, Name: "x", Type: contract.Other, Status: contract.Draft, CreatedAt: T0, UpdatedAt: T0}, created(uid, T0))
	is.Equal(code(err), domain.ECONFLICT) // the UUID is taken
	_, err = s.Contracts.Contract(ctx, 999)
	is.Equal(code(err), domain.ENOTFOUND)

	// An error from fn changes nothing; a change is saved with its entries.
	boom := fmt.Errorf("boom")
	_, err = s.Contracts.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.Name = "changed"
		return nil, boom
	})
	is.Equal(err, boom)
	t1 := T0.Add(time.Hour)
	got, err = s.Contracts.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.Name, c.Amount, c.MatterID, c.Status, c.UpdatedAt = "Lease 2", nil, nil, contract.Signed, t1
		c.ID, c.UUID = 77, "other" // cannot change
		return []contract.AuditEntry{{Action: contract.ActionStatusChanged, From: contract.Draft, To: contract.Signed, Actor: contract.ActorUser, ActorUserID: uid, At: t1, Details: "signed"}}, nil
	})
	is.NoErr(err)
	is.Equal(got.ID, c.ID)
	is.Equal(got.UUID, c.UUID)
	is.True(got.Amount == nil && got.MatterID == nil)
	is.True(got.UpdatedAt.Equal(t1))
	_, err = s.Contracts.UpdateContract(ctx, 999, func(*contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
	is.Equal(code(err), domain.ENOTFOUND)

	hist, n, err := s.Contracts.History(ctx, c.ID, 10, 0)
	is.NoErr(err)
	is.Equal(n, int64(2))
	is.Equal(hist[0].Action, contract.ActionStatusChanged) // newest first
	is.Equal(hist[0].ActorName, "Ada Admin")
	is.Equal(hist[0].From, contract.Draft)
	is.Equal(hist[0].Details, "signed")
	is.Equal(hist[1].ActorUserID, uid)
	hist, _, _ = s.Contracts.History(ctx, c.ID, 1, 1)
	is.Equal(hist[0].Action, contract.ActionCreated)
	_, _, err = s.Contracts.History(ctx, 999, 10, 0)
	is.Equal(code(err), domain.ENOTFOUND)

	// Expiry: Signed and ended before now, earliest first.
	due, err := s.Contracts.DueForExpiry(ctx, end.Add(time.Second), 10)
	is.NoErr(err)
	is.Equal(due, []int64{c.ID})
	due, err = s.Contracts.DueForExpiry(ctx, end, 10)
	is.NoErr(err)
	is.Equal(len(due), 0)

	// Documents.
	doc := contract.Document{ContractID: c.ID, FileName: "a.pdf", ContentType: contract.ContentTypePDF,
		StorageKey: "ignored", UploadedAt: T0, UploadedBy: uid}
	d1, err := s.Contracts.AddDocument(ctx, withBytes(doc, "first"), []contract.AuditEntry{{Action: contract.ActionDocumentAdded, Actor: contract.ActorUser, ActorUserID: uid, At: T0, Details: "a.pdf"}}, nil)
	is.NoErr(err)
	is.True(d1.ID > 0)
	is.Equal(len(d1.StorageKey), 32) // the store's own key
	is.Equal(d1.Size, int64(len("first")))
	doc.FileName = "b.pdf"
	d2, err := s.Contracts.AddDocument(ctx, withBytes(doc, "second"), nil, nil)
	is.NoErr(err)
	is.True(d2.StorageKey != d1.StorageKey)
	docs, err := s.Contracts.Documents(ctx, c.ID)
	is.NoErr(err)
	is.Equal([]int64{docs[0].ID, docs[1].ID}, []int64{d1.ID, d2.ID})
	_, err = s.Contracts.Documents(ctx, 999)
	is.Equal(code(err), domain.ENOTFOUND)
	doc.ContractID = 999
	_, err = s.Contracts.AddDocument(ctx, withBytes(doc, "x"), nil, nil)
	is.Equal(code(err), domain.ENOTFOUND)
	_, err = s.Contracts.Document(ctx, c.ID, 999)
	is.Equal(code(err), domain.ENOTFOUND)
	_, err = s.Contracts.Document(ctx, 999, d1.ID)
	is.Equal(code(err), domain.ENOTFOUND)
	byID, err := s.Contracts.DocumentByID(ctx, d2.ID)
	is.NoErr(err)
	is.Equal(byID.FileName, "b.pdf")
	is.True(byID.UploadedAt.Equal(T0))
	// fn decides on the status its transaction reads; a refusal keeps
	// the document.
	var seen contract.Status
	_, err = s.Contracts.RemoveDocument(ctx, c.ID, d1.ID, func(st contract.Status, d contract.Document) ([]contract.AuditEntry, error) {
		seen = st
		return nil, boom
	})
	is.Equal(err, boom)
	is.Equal(seen, contract.Signed)
	_, err = s.Contracts.Document(ctx, c.ID, d1.ID)
	is.NoErr(err) // kept
	_, err = s.Contracts.RemoveDocument(ctx, 999, d1.ID, func(contract.Status, contract.Document) ([]contract.AuditEntry, error) { return nil, nil })
	is.Equal(code(err), domain.ENOTFOUND)
	rm, err := s.Contracts.RemoveDocument(ctx, c.ID, d1.ID, func(_ contract.Status, d contract.Document) ([]contract.AuditEntry, error) {
		return []contract.AuditEntry{{Action: contract.ActionDocumentRemoved, Actor: contract.ActorSystem, At: T0, Details: d.FileName}}, nil
	})
	is.NoErr(err)
	is.Equal(rm.StorageKey, d1.StorageKey)
	_, _, _ = s.Contracts.History(ctx, c.ID, 10, 0)
	hist, n, _ = s.Contracts.History(ctx, c.ID, 10, 0)
	is.Equal(n, int64(4))
	is.Equal(hist[0].ActorName, "system")

	// Signing: found by submission; a repeated event is a no-op.
	_, err = s.Contracts.UpdateContract(ctx, c.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
		c.DigitalContractID, c.DigitalContractSubmissionID = "tpl-1", "sub-1"
		return nil, nil
	})
	is.NoErr(err)
	calls := 0
	apply := func(c *contract.Contract) ([]contract.AuditEntry, error) {
		calls++
		c.Comments = "applied"
		return []contract.AuditEntry{{Action: contract.ActionSigningEvent, Actor: contract.ActorSigningProvider, At: T0}}, nil
	}
	got, applied, err := s.Contracts.UpdateBySubmission(ctx, "sub-1", "completed:a@example.com", apply)
	is.NoErr(err)
	is.True(applied)
	is.Equal(got.Comments, "applied")
	_, applied, err = s.Contracts.UpdateBySubmission(ctx, "sub-1", "completed:a@example.com", apply)
	is.NoErr(err)
	is.True(!applied)
	is.Equal(calls, 1)
	_, _, err = s.Contracts.UpdateBySubmission(ctx, "sub-2", "", apply)
	is.Equal(code(err), domain.ENOTFOUND)
	_, _, err = s.Contracts.UpdateBySubmission(ctx, "", "", apply)
	is.Equal(code(err), domain.ENOTFOUND)

	// Delete: refused by fn, then done; the trail stays.
	_, err = s.Contracts.DeleteContract(ctx, c.ID, func(contract.Contract) ([]contract.AuditEntry, error) { return nil, boom })
	is.Equal(err, boom)
	removed, err := s.Contracts.DeleteContract(ctx, c.ID, func(c contract.Contract) ([]contract.AuditEntry, error) {
		return []contract.AuditEntry{{Action: contract.ActionDeleted, From: c.Status, Actor: contract.ActorUser, ActorUserID: uid, At: T0}}, nil
	})
	is.NoErr(err)
	is.Equal(len(removed), 1)
	is.Equal(removed[0].StorageKey, d2.StorageKey)
	_, err = s.Contracts.Contract(ctx, c.ID)
	is.Equal(code(err), domain.ENOTFOUND)
	_, err = s.Contracts.DocumentByID(ctx, d2.ID)
	is.Equal(code(err), domain.ENOTFOUND)
	_, n, err = s.Contracts.History(ctx, c.ID, 10, 0)
	is.NoErr(err)
	is.Equal(n, int64(6))

	// At most MaxDocuments per contract.
	c2, err := s.Contracts.CreateContract(ctx, contract.Contract{UUID: "c2", Name: "Many", Type: contract.Other, Status: contract.Draft, CreatedAt: T0, UpdatedAt: T0}, created(uid, T0))
	is.NoErr(err)
	doc.ContractID = c2.ID
	for i := 0; i < contract.MaxDocuments; i++ {
		_, err := s.Contracts.AddDocument(ctx, withBytes(doc, fmt.Sprint("many-", i)), nil, contract.CheckRoomForDocument)
		is.NoErr(err)
	}
	_, err = s.Contracts.AddDocument(ctx, withBytes(doc, "one too many"), nil, contract.CheckRoomForDocument)
	is.Equal(code(err), domain.ECONFLICT)
	is.Equal(err.Error(), contract.CheckRoomForDocument(contract.MaxDocuments).Error())

	// check sees the documents counted in the store's transaction, and its
	// refusal writes neither the document nor its audit entries.
	c3, err := s.Contracts.CreateContract(ctx, contract.Contract{UUID: "c3", Name: "Checked", Type: contract.Other, Status: contract.Draft, CreatedAt: T0, UpdatedAt: T0}, created(uid, T0))
	is.NoErr(err)
	doc.ContractID = c3.ID
	var counted []int
	count := func(err error) func(int) error {
		return func(n int) error { counted = append(counted, n); return err }
	}
	for i := range 2 {
		_, err = s.Contracts.AddDocument(ctx, withBytes(doc, fmt.Sprint("checked-", i)), nil, count(nil))
		is.NoErr(err)
	}
	_, err = s.Contracts.AddDocument(ctx, withBytes(doc, "refused"), []contract.AuditEntry{{Action: contract.ActionDocumentAdded, Actor: contract.ActorUser, ActorUserID: uid, At: T0, Details: "refused"}}, count(boom))
	is.Equal(err, boom)
	is.Equal(counted, []int{0, 1, 2})
	docs, err = s.Contracts.Documents(ctx, c3.ID)
	is.NoErr(err)
	is.Equal(len(docs), 2)
	_, n, err = s.Contracts.History(ctx, c3.ID, 10, 0)
	is.NoErr(err)
	is.Equal(n, int64(1)) // created only
}

// listWords make the searched text: "common" is in half the contracts.
var listWords = []string{"alpha", "Bravo", "charlie", "délta", "echo"}

// ContractListSuite compares every filter, order and page with the same
// selection made in Go over the seeded contracts.
func ContractListSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	uid := bootstrap(t, s)
	var all []contract.Contract
	for i := 0; i < 60; i++ {
		c := contract.Contract{
			UUID:        fmt.Sprintf("uuid-%03d", i),
			Name:        fmt.Sprintf("%s contract %d", listWords[i%len(listWords)], i%17),
			Description: "plain 100% text",
			Type:        contract.Type(1 + i%6),
			Status:      contract.Status(1 + i%8),
			IsSigned:    i%3 == 0,
			CreatedAt:   T0.Add(time.Duration(i%13) * time.Hour),
			UpdatedAt:   T0.Add(time.Duration(i%7) * time.Minute),
		}
		if i%2 == 0 {
			c.Description = "a common_word here"
		}
		if i%5 == 0 {
			c.Comments = "Zebra crossing"
		}
		if i%4 != 0 {
			d := T0.AddDate(0, 0, i%9)
			c.StartDate = &d
			e := d.AddDate(0, i%4, 0)
			c.EndDate = &e
		}
		if i%3 != 1 {
			a := decimal.FromScaled(int64(i%11)*1000+5, 2)
			c.Amount = &a
		}
		if i%4 == 1 {
			m := int64(i % 3)
			c.MatterID = &m
		}
		if i%6 == 2 {
			cl := int64(7)
			c.ClientID = &cl
		}
		if i%7 == 3 {
			c.DigitalContractID = "tpl"
		}
		out, err := s.Contracts.CreateContract(ctx, c, created(uid, c.CreatedAt))
		is.NoErr(err)
		all = append(all, out)
	}
	yes, no := true, false
	one, seven := int64(1), int64(7)
	from, to := T0.AddDate(0, 0, 2), T0.AddDate(0, 0, 5)
	base := []contract.Filter{
		{},
		{Statuses: []contract.Status{contract.Signed}},
		{Statuses: []contract.Status{contract.Draft, contract.Declined}},
		{Types: []contract.Type{contract.Other}, IsSigned: &yes},
		{IsDigital: &yes},
		{IsDigital: &no, IsSigned: &no},
		{MatterID: &one},
		{ClientID: &seven},
		{Related: contract.RelatedMatter},
		{Related: contract.RelatedClient, RelatedID: &seven},
		{StartFrom: &from, StartTo: &to},
		{EndFrom: &from},
		{Search: "bravo"},
		{Search: "DÉLTA"},
		{Search: "common_word", Statuses: []contract.Status{contract.Draft, contract.Signed}},
		{Search: "100%"},
		{Search: "ze"},
		{Search: "o c"},
		{Search: "nothing-matches"},
		{Search: "crossing", Types: []contract.Type{contract.ServiceAgreement}, IsSigned: &yes, StartFrom: &from},
	}
	sorts := []contract.SortField{contract.SortUpdatedAt, contract.SortCreatedAt, contract.SortContractName, contract.SortStartDate, contract.SortEndDate, contract.SortAmount}
	pages := [][2]int64{{100, 0}, {7, 0}, {5, 3}, {10, 55}, {0, 0}}
	for bi, f := range base {
		for si, sort := range sorts {
			for pi, pg := range pages {
				if (bi+si+pi)%3 != 0 && pi != 0 { // a spread of combinations, every filter and order in full
					continue
				}
				f := f
				f.SortBy, f.SortDesc, f.Limit, f.Offset = sort, (bi+si)%2 == 1, pg[0], pg[1]
				want, wantN := reference(all, f)
				got, n, err := s.Contracts.Contracts(ctx, f)
				is.NoErr(err)
				gotIDs := []int64{}
				for _, c := range got {
					gotIDs = append(gotIDs, c.ID)
				}
				if n != wantN || fmt.Sprint(gotIDs) != fmt.Sprint(want) {
					t.Errorf("filter %d sort %d desc %v page %v: got %v (%d), want %v (%d)", bi, sort, f.SortDesc, pg, gotIDs, n, want, wantN)
				}
			}
		}
	}
	// A list item has what the list shows.
	got, _, err := s.Contracts.Contracts(ctx, contract.Filter{Search: "uuid-000", Limit: 1})
	is.NoErr(err)
	is.Equal(len(got), 0) // the UUID is not searched
	got, _, err = s.Contracts.Contracts(ctx, contract.Filter{SortBy: contract.SortCreatedAt, Limit: 1})
	is.NoErr(err)
	is.Equal(got[0].UUID, all[0].UUID)
	is.Equal(got[0].Amount.String(), all[0].Amount.String())
	_ = account.AdministratorRole
}

// reference selects, orders and pages in Go as the stores must: NULL
// first in ascending order, names compared without ASCII case, ties by id.
func reference(all []contract.Contract, f contract.Filter) ([]int64, int64) {
	var m []contract.Contract
	for _, c := range all {
		if matches(c, f) {
			m = append(m, c)
		}
	}
	key := func(c contract.Contract) (bool, string, int64) {
		switch f.SortBy {
		case contract.SortCreatedAt:
			return true, "", c.CreatedAt.UnixMilli()
		case contract.SortContractName:
			return true, asciiLower(c.Name), 0
		case contract.SortStartDate:
			if c.StartDate == nil {
				return false, "", 0
			}
			return true, "", c.StartDate.UnixMilli()
		case contract.SortEndDate:
			if c.EndDate == nil {
				return false, "", 0
			}
			return true, "", c.EndDate.UnixMilli()
		case contract.SortAmount:
			if c.Amount == nil {
				return false, "", 0
			}
			v, _ := c.Amount.Scaled(2)
			return true, "", v
		}
		return true, "", c.UpdatedAt.UnixMilli()
	}
	slices.SortFunc(m, func(a, b contract.Contract) int {
		av, as, an := key(a)
		bv, bs, bn := key(b)
		r := 0
		switch {
		case av != bv && !av:
			r = -1
		case av != bv:
			r = 1
		default:
			r = cmp.Or(strings.Compare(as, bs), cmp.Compare(an, bn))
		}
		r = cmp.Or(r, cmp.Compare(a.ID, b.ID))
		if f.SortDesc {
			r = -r
		}
		return r
	})
	ids := []int64{}
	for i := f.Offset; i < int64(len(m)) && i < f.Offset+f.Limit; i++ {
		ids = append(ids, m[i].ID)
	}
	return ids, int64(len(m))
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func matches(c contract.Contract, f contract.Filter) bool {
	if s := strings.TrimSpace(f.Search); s != "" {
		s = strings.ToLower(s)
		if !strings.Contains(strings.ToLower(c.Name), s) && !strings.Contains(strings.ToLower(c.Description), s) && !strings.Contains(strings.ToLower(c.Comments), s) {
			return false
		}
	}
	if len(f.Statuses) > 0 && !slices.Contains(f.Statuses, c.Status) ||
		len(f.Types) > 0 && !slices.Contains(f.Types, c.Type) ||
		f.IsSigned != nil && *f.IsSigned != c.IsSigned ||
		f.IsDigital != nil && *f.IsDigital != c.IsDigital() ||
		f.MatterID != nil && (c.MatterID == nil || *c.MatterID != *f.MatterID) ||
		f.ClientID != nil && (c.ClientID == nil || *c.ClientID != *f.ClientID) ||
		f.ProjectID != nil && (c.ProjectID == nil || *c.ProjectID != *f.ProjectID) ||
		f.OwnerID != nil && (c.OwnerID == 0 || c.OwnerID != *f.OwnerID) {
		return false
	}
	var rel *int64
	switch f.Related {
	case contract.RelatedMatter:
		rel = c.MatterID
	case contract.RelatedClient:
		rel = c.ClientID
	case contract.RelatedProject:
		rel = c.ProjectID
	}
	if f.Related != contract.RelatedNone && (rel == nil || f.RelatedID != nil && *rel != *f.RelatedID) {
		return false
	}
	in := func(d *time.Time, lo, hi *time.Time) bool {
		if lo == nil && hi == nil {
			return true
		}
		return d != nil && (lo == nil || !d.Before(*lo)) && (hi == nil || !d.After(*hi))
	}
	return in(c.StartDate, f.StartFrom, f.StartTo) && in(c.EndDate, f.EndFrom, f.EndTo) &&
		in(c.NoticeDate(), f.NoticeFrom, f.NoticeTo)
}
