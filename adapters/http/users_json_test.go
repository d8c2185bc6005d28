package http

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/matryer/is"
)

// TestMeJSON holds the hand-written GET /api/me body equal to what
// encoding/json writes through encode, headers included.
func TestMeJSON(t *testing.T) {
	at := Time(time.Date(2019, 3, 4, 0, 0, 0, 0, time.UTC))
	addr := addressDTO{Address1: "1 King St", Address2: "Level 2", Suburb: "Sydney", State: "NSW", Postcode: "2000", Country: "Australia"}
	odd := addressDTO{Address1: "quote \" back \\ <&> tab\t nl\n", Address2: "\x00\x1f\u2028\u2029é漢", Suburb: "bad \xff\xfe utf8", State: "\ufffd", Postcode: "", Country: "ö"}
	tests := []struct {
		name string
		d    currentUserDTO
	}{
		{"empty", currentUserDTO{}},
		{"plain", currentUserDTO{ID: 7, Email: "a@b.example", ContactNumber: "+61 2 9999 0000", FirstName: "Ada", LastName: "Lovelace",
			ProfilePictureURL: "https://x.example/p.png?a=1&b=2", FTELoad: "0.8", BillingRate: "450.00", BillablePercentage: "85",
			RemunerationIncSuper: "150000.00", PQY: "7.25", AdmissionDate: &at, Address: addr,
			Office: &officeDTO{ID: 3, Name: "Sydney", Phone: "02", Website: "https://o.example", Active: true, Address: addr}}},
		{"every flag and count", currentUserDTO{ID: -1, HasActiveTimer: true, HasNotifications: true, HasActiveDocument: true,
			HasIncompleteReviewRequest: true, HasUnacknowledgedCompletedReview: true, InvoicesAwaitingApproval: 3, InvoicesReadyForProcessing: -2,
			FTELoad: "1", BillingRate: "0.00", BillablePercentage: "0", PQY: "-0.50", RemunerationIncSuper: "1e3"}},
		{"characters to escape", currentUserDTO{ID: 1, Email: odd.Address1, FirstName: odd.Address2, LastName: odd.Suburb, ContactNumber: odd.State,
			ProfilePictureURL: "\u007f", Address: odd, Office: &officeDTO{Name: odd.Address2, Address: odd}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			want := httptest.NewRecorder()
			encode(want, 200, tt.d)
			got := httptest.NewRecorder()
			writeMe(got, &tt.d)
			is.Equal(got.Body.String(), want.Body.String())
			is.Equal(got.Header(), want.Header())
			is.Equal(got.Code, want.Code)
			is.True(json.Valid(bytes.TrimSpace(got.Body.Bytes())))
		})
	}
}

func BenchmarkMeJSON(b *testing.B) {
	at := Time(time.Date(2019, 3, 4, 0, 0, 0, 0, time.UTC))
	d := currentUserDTO{ID: 7, Email: "a@b.example", FirstName: "Ada", LastName: "Lovelace", FTELoad: "0.8", BillingRate: "450.00",
		BillablePercentage: "85", RemunerationIncSuper: "150000.00", PQY: "7.25", AdmissionDate: &at}
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encode(httptest.NewRecorder(), 200, d)
		}
	})
	b.Run("by hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			writeMe(httptest.NewRecorder(), &d)
		}
	})
}
