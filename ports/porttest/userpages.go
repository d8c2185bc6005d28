package porttest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"counsel/domain/user"
)

// UserPagesSuite holds a deep page of the user list (past 1,000 users,
// which an engine may find by its ids first) to the order of every list:
// last name, then first name, ASCII case folded, then id; reversed for
// SortDesc.
func UserPagesSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	bootstrap(t, s)
	lasts := []string{"smith", "Smith", "jones", "JONES", "Brown", "brown", "adams", "Zed"}
	firsts := []string{"ann", "Ann", "bob", "Bob", "cy"}
	us := make([]user.User, 1100)
	for i := range us {
		us[i] = newUser(fmt.Sprintf("page%04d@example.com", i), firsts[i%len(firsts)], lasts[(i/len(firsts))%len(lasts)])
	}
	type bulk interface {
		CreateUsers(ctx context.Context, us []user.User) ([]int64, error)
	}
	if b, ok := s.Users.(bulk); ok {
		_, err := b.CreateUsers(ctx, us)
		is.NoErr(err)
	} else {
		for _, u := range us {
			_, err := s.Users.CreateUser(ctx, u, "", nil)
			is.NoErr(err)
		}
	}
	all, total, err := s.Users.Users(ctx, user.Filter{Limit: 1000})
	is.NoErr(err)
	is.Equal(total, int64(len(us)+1)) // and the administrator
	more, _, err := s.Users.Users(ctx, user.Filter{Limit: 1000, Offset: 1000})
	is.NoErr(err)
	all = append(all, more...)
	is.Equal(len(all), len(us)+1)
	want := slices.Clone(all)
	slices.SortFunc(want, func(a, b user.User) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.LastName), strings.ToLower(b.LastName)),
			cmp.Compare(strings.ToLower(a.FirstName), strings.ToLower(b.FirstName)), cmp.Compare(a.ID, b.ID))
	})
	ids := func(us []user.User) []int64 {
		out := make([]int64, len(us))
		for i, u := range us {
			out[i] = u.ID
		}
		return out
	}
	is.Equal(ids(all), ids(want)) // the two pages in the list's order
	slices.Reverse(want)
	for _, off := range []int64{990, 1000, 1090} {
		for _, desc := range []bool{false, true} {
			page, n, err := s.Users.Users(ctx, user.Filter{Limit: 30, Offset: off, SortDesc: desc})
			is.NoErr(err)
			is.Equal(n, total)
			expect := want[off:min(off+30, int64(len(want)))]
			if !desc {
				expect = all[off:min(off+30, int64(len(all)))]
			}
			is.Equal(ids(page), ids(expect)) // a deep page, in order
		}
	}
	inactive := false
	page, n, err := s.Users.Users(ctx, user.Filter{Limit: 10, Offset: 1000, Active: &inactive})
	is.NoErr(err)
	is.Equal(n, int64(0)) // a filtered deep page past its end
	is.Equal(len(page), 0)
}
