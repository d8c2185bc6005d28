package sqlite_test

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/contract"
	"counsel/ports"
)

func TestUpdateBySubmission(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, uid := openContracts(t)
	mk := func(name, submission string) contract.Contract {
		c, err := st.CreateContract(ctx, contract.Contract{UUID: name, Name: name, Type: contract.Other, Status: contract.WaitingForClientSignature,
			DigitalContractID: "tpl-" + name, DigitalContractSubmissionID: submission, CreatedAt: contractT0, UpdatedAt: contractT0}, created(uid, contractT0))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a := mk("a", "501")
	b := mk("b", "502")
	mk("plain", "")
	sign := func(c *contract.Contract) ([]contract.AuditEntry, error) {
		ch, err := c.ChangeStatus(contract.Signed, contract.ActorSigningProvider)
		if err != nil {
			return nil, err
		}
		return ch.Audit(contract.ActionSigningEvent, 0, contractT0, "signed"), nil
	}
	history := func(id int64) int64 {
		_, n, err := st.History(ctx, id, 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	for _, tc := range []struct {
		name       string
		submission string
		key        string
		fn         func(c *contract.Contract) ([]contract.AuditEntry, error)
		want       contract.Status
		applied    bool
		code       string
		entries    int64 // history length of a afterwards
	}{
		{"applies to the contract of the submission", "501", "submission.completed", sign, contract.Signed, true, "", 2},
		{"a key seen before is not applied again", "501", "submission.completed", func(*contract.Contract) ([]contract.AuditEntry, error) {
			t.Fatal("fn called for a repeated key")
			return nil, nil
		}, contract.Signed, false, "", 2},
		{"another key of the same submission applies", "501", "completed:alice@example.com", func(*contract.Contract) ([]contract.AuditEntry, error) {
			return []contract.AuditEntry{{Action: contract.ActionSigningEvent, Actor: contract.ActorSigningProvider, At: contractT0, Details: "alice signed"}}, nil
		}, contract.Signed, true, "", 3},
		{"an empty key is never recorded", "501", "", func(*contract.Contract) ([]contract.AuditEntry, error) { return nil, nil }, contract.Signed, true, "", 3},
		{"an unknown submission", "999", "submission.completed", sign, 0, false, domain.ENOTFOUND, 3},
		{"the empty submission id of a non-digital contract", "", "submission.completed", sign, 0, false, domain.ENOTFOUND, 3},
		{"an error from fn rolls back the key too", "502", "declined:bob@example.com", func(*contract.Contract) ([]contract.AuditEntry, error) {
			return nil, errors.New("refused")
		}, 0, false, "refused", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			c, applied, err := st.UpdateBySubmission(ctx, tc.submission, tc.key, tc.fn)
			switch tc.code {
			case "":
				is.NoErr(err)                 // applied or skipped
				is.Equal(c.ID, a.ID)          // the submission's contract
				is.Equal(c.Status, tc.want)   // its status afterwards
				is.Equal(applied, tc.applied) // applied or a repeat
			case "refused":
				is.True(err != nil) // fn's error
				is.True(!applied)   // nothing applied
			default:
				is.Equal(domain.ErrorCode(err), tc.code) // no such contract
			}
			is.Equal(history(a.ID), tc.entries) // a's audit trail
		})
	}

	t.Run("the rolled-back key can be applied later", func(t *testing.T) {
		is := is.New(t)
		c, applied, err := st.UpdateBySubmission(ctx, "502", "declined:bob@example.com", func(c *contract.Contract) ([]contract.AuditEntry, error) {
			ch, err := c.ChangeStatus(contract.Declined, contract.ActorSigningProvider)
			return ch.Audit(contract.ActionSigningEvent, 0, contractT0, "bob declined"), err
		})
		is.NoErr(err)                         // applied now
		is.True(applied)                      // not taken for a repeat
		is.Equal(c.ID, b.ID)                  // b
		is.Equal(c.Status, contract.Declined) // declined
		is.Equal(history(b.ID), int64(2))     // one entry added
	})

	t.Run("deleting a contract drops its keys", func(t *testing.T) {
		is := is.New(t)
		d := mk("d", "503")
		_, err := st.UpdateContract(ctx, d.ID, func(c *contract.Contract) ([]contract.AuditEntry, error) {
			c.Status = contract.Draft
			return nil, nil
		})
		is.NoErr(err) // back to Draft
		_, applied, err := st.UpdateBySubmission(ctx, "503", "k", func(*contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
		is.NoErr(err)    // key recorded
		is.True(applied) // first time
		_, err = st.DeleteContract(ctx, d.ID, func(contract.Contract) ([]contract.AuditEntry, error) { return nil, nil })
		is.NoErr(err) // deleted with its keys (else the foreign key would refuse)
	})
}

func TestDocumentByID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, uid := openContracts(t)
	c, err := st.CreateContract(ctx, contract.Contract{UUID: "u", Name: "c", Type: contract.Other, Status: contract.Draft, CreatedAt: contractT0, UpdatedAt: contractT0}, created(uid, contractT0))
	if err != nil {
		t.Fatal(err)
	}
	d, err := st.AddDocument(ctx, withBytes(contract.Document{ContractID: c.ID, FileName: "a.pdf", ContentType: contract.ContentTypePDF,
		UploadedAt: contractT0, UploadedBy: uid}, "abc"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		id   int64
		code string
	}{
		{"a document", d.ID, ""},
		{"an unknown id", d.ID + 1, domain.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, err := st.DocumentByID(ctx, tc.id)
			if tc.code != "" {
				is.Equal(domain.ErrorCode(err), tc.code) // not found
				return
			}
			is.NoErr(err)                          // found
			is.Equal(got.ContractID, c.ID)         // with its contract
			is.Equal(got.StorageKey, d.StorageKey) // and its bytes
		})
	}
}

func TestAddEvidence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, uid := openContracts(t)
	c, err := st.CreateContract(ctx, contract.Contract{UUID: "e", Name: "e", Type: contract.Other, Status: contract.Signed,
		DigitalContractID: "tpl-e", DigitalContractSubmissionID: "601", CreatedAt: contractT0, UpdatedAt: contractT0}, created(uid, contractT0))
	if err != nil {
		t.Fatal(err)
	}
	evidence := func(key string) []ports.NewDocument {
		return []ports.NewDocument{
			withBytes(contract.Document{FileName: "signed.pdf", ContentType: contract.ContentTypePDF, UploadedAt: contractT0, Kind: contract.KindSigned}, "s-"+key),
			withBytes(contract.Document{FileName: "audit.pdf", ContentType: contract.ContentTypePDF, UploadedAt: contractT0, Kind: contract.KindAudit}, "a-"+key),
		}
	}
	entry := []contract.AuditEntry{{Action: contract.ActionSigningCompleted, Actor: contract.ActorSigningProvider, At: contractT0, Details: "sha"}}

	is := is.New(t)
	got, applied, err := st.AddEvidence(ctx, "601", evidence("1"), entry, nil)
	is.NoErr(err)
	is.True(applied) // the first time
	is.Equal(len(got), 2)
	is.Equal(got[0].ContractID, c.ID)

	again, applied, err := st.AddEvidence(ctx, "601", evidence("2"), entry, nil)
	is.NoErr(err)
	is.True(!applied)                           // once only
	is.Equal(again[0].SHA256, got[0].SHA256)    // the first run's documents
	is.Equal(again[1].Kind, contract.KindAudit) // with their kinds
	docs, err := st.Documents(ctx, c.ID)
	is.NoErr(err)
	is.Equal(len(docs), 2)
	_, n, err := st.History(ctx, c.ID, 100, 0)
	is.NoErr(err)
	is.Equal(n, int64(2)) // created + one signingCompleted

	ok, err := st.SignedDocumentBySHA256(ctx, withBytes(contract.Document{}, "s-1").SHA256)
	is.NoErr(err)
	is.True(ok) // the signed PDF is found by its hash
	ok, err = st.SignedDocumentBySHA256(ctx, withBytes(contract.Document{}, "a-1").SHA256)
	is.NoErr(err)
	is.True(!ok) // an audit certificate is not a signed document

	_, _, err = st.AddEvidence(ctx, "999", evidence("3"), entry, nil)
	is.Equal(domain.ErrorCode(err), domain.ENOTFOUND) // no contract has the submission
	got2, err := st.ContractBySubmission(ctx, "601")
	is.NoErr(err)
	is.Equal(got2.ID, c.ID)
}
