package stores

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestRedactDSN(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"postgres://counsel:s3cret@db.example:5432/counsel?sslmode=require", "postgres://counsel:xxxxx@db.example:5432/counsel?sslmode=require"},
		{"postgresql://counsel:p%40ss@db/counsel", "postgresql://counsel:xxxxx@db/counsel"},
		{"postgres://counsel@db/counsel?password=s3cret&sslmode=disable", "postgres://counsel@db/counsel?password=xxxxx&sslmode=disable"},
		{"host=db user=counsel password=s3cret dbname=counsel", "host=db user=counsel password=xxxxx dbname=counsel"},
		{"host=db password='s3 cret\\'x' dbname=counsel", "host=db password=xxxxx dbname=counsel"},
		{"host=db PASSWORD = s3cret", "host=db PASSWORD = xxxxx"},
		{"postgres://counsel:s3cret@db:bad port/x", "postgres://counsel:xxxxx@db:bad port/x"},
		{"./counsel.db", "./counsel.db"},
		{"postgres://counsel@db/counsel", "postgres://counsel@db/counsel"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			got := RedactDSN(tt.in)
			is.Equal(got, tt.want)                     // masked
			is.True(!strings.Contains(got, "s3cret"))  // no password
			is.True(!strings.Contains(got, "s3 cret")) // not even quoted
		})
	}
}
