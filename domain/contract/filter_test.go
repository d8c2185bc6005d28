package contract

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
)

func TestParseSortField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want SortField
		ok   bool
	}{
		{"", SortUpdatedAt, true},
		{"updatedAt", SortUpdatedAt, true},
		{"contractname", SortContractName, true},
		{"Start Date", SortStartDate, true},
		{"end_date", SortEndDate, true},
		{"AMOUNT", SortAmount, true},
		{"created-at", SortCreatedAt, true},
		{"status", 0, false},
		{"id", 0, false},
		{"1", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			got, err := ParseSortField(tt.in)
			if !tt.ok {
				is.Equal(domain.ErrorCode(err), domain.EINVALID)                                                                           // 400
				is.Equal(domain.ErrorMessage(err), "SortBy must be one of contractName, startDate, endDate, amount, createdAt, updatedAt") // names the values
				return
			}
			is.NoErr(err)          // parsed
			is.Equal(got, tt.want) // field
		})
	}
	for _, f := range AllSortFields() {
		back, err := ParseSortField(f.String())
		if err != nil || back != f {
			t.Fatalf("%s does not round-trip", f)
		}
	}
}

func TestParseRelatedEntity(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	for in, want := range map[string]RelatedEntity{"Matter": RelatedMatter, "client": RelatedClient, "PROJECT": RelatedProject, "2": RelatedClient} {
		got, err := ParseRelatedEntity(in)
		is.NoErr(err)       // known kind
		is.Equal(got, want) // kind
	}
	_, err := ParseRelatedEntity("Office")
	is.Equal(domain.ErrorMessage(err), "RelatedEntityType must be one of Matter (1), Client (2), Project (3)") // names the values
}

func TestFilterValidate(t *testing.T) {
	t.Parallel()
	d1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d2 := d1.AddDate(0, 1, 0)
	tests := []struct {
		name  string
		f     Filter
		field string
	}{
		{"empty", Filter{}, ""},
		{"ranges", Filter{StartFrom: &d1, StartTo: &d2, EndFrom: &d1, EndTo: &d1}, ""},
		{"related", Filter{Related: RelatedClient, RelatedID: ptr(int64(3))}, ""},
		{"related kind alone", Filter{Related: RelatedClient}, ""},
		{"long search", Filter{Search: strings.Repeat("ä", 201)}, "Search"},
		{"id without kind", Filter{RelatedID: ptr(int64(3))}, "RelatedEntityId"},
		{"start range reversed", Filter{StartFrom: &d2, StartTo: &d1}, "StartDateTo"},
		{"end range reversed", Filter{EndFrom: &d2, EndTo: &d1}, "EndDateTo"},
		{"negative limit", Filter{Limit: -1}, "Limit"},
		{"negative offset", Filter{Offset: -1}, "Offset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := tt.f.Validate()
			if tt.field == "" {
				is.NoErr(err) // valid
				return
			}
			var e *domain.Error
			is.True(asError(err, &e))             // field errors
			is.True(len(e.Fields[tt.field]) == 1) // on the parameter
		})
	}
}
